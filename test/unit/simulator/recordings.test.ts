import { describe, expect, it } from 'vitest';
import {
  parseAsteriskPrompts,
  parseSphinxTranscription,
  RecordingCatalog,
} from '../../../simulator/recordings.js';
import { utteranceInput } from '../../../simulator/schema.js';

describe('recording transcripts', () => {
  it('reads Sphinx transcription lines, sentence markers and file ids apart', () => {
    expect(
      parseSphinxTranscription(
        '<s> he was not an ill disposed young man </s> (sense-0880)\n<s> ten of clubs  </s> (001)\n\nnot a line\n',
      ),
    ).toEqual([
      { name: 'sense-0880', text: 'he was not an ill disposed young man' },
      { name: '001', text: 'ten of clubs' },
    ]);
  });

  it('keeps the Asterisk prompts that are plain words and long enough', () => {
    const list = [
      '; Core Asterisk Sounds in English',
      'activated: Activated.',
      'beep: [this is a simple beep tone]',
      'conf-adminmenu-162: Please press 1 to mute or unmute yourself.',
      'conf-kicked: You have been kicked from this conference, sorry.',
      'digits/1: One.',
    ].join('\n');
    expect(parseAsteriskPrompts(list, 6)).toEqual([
      { name: 'conf-kicked', text: 'You have been kicked from this conference, sorry.' },
    ]);
    expect(parseAsteriskPrompts(list, 1).map((prompt) => prompt.name)).toEqual(['activated', 'conf-kicked']);
  });

  it('names what to install when a set is missing, and the known sets for an unknown one', () => {
    const empty = new RecordingCatalog('/nonexistent-root');
    expect(empty.sets()).toEqual([]);
    expect(empty.get('librivox/sense_and_sensibility_01_austen_64kb-0880')).toBeUndefined();
    expect(empty.whyMissing('librivox/x')).toBe(
      "recording set 'librivox' is not installed (apt-get install pocketsphinx-testdata)",
    );
    expect(empty.whyMissing('podcasts/x')).toMatch(
      /unknown recording set 'podcasts' \(known: librivox, cards, asterisk\)/,
    );
  });
});

describe('utterance scripts', () => {
  it('take either text or a recording’s name, never a path', () => {
    expect(utteranceInput.parse({ at: 1, text: ' Hello ' })).toEqual({ at: 1, text: 'Hello' });
    expect(utteranceInput.parse({ at: 1, clip: 'cards/001' })).toEqual({ at: 1, clip: 'cards/001' });
    for (const bad of [
      { at: 1 },
      { at: 1, text: 'x', clip: 'cards/001' },
      { at: 1, clip: '/usr/share/pocketsphinx/test/data/cards/001.wav' },
      { at: 1, clip: 'cards/../../etc/passwd' },
      { at: 1, clip: 'cards/.x' },
    ]) {
      expect(utteranceInput.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
