import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * Real human speech with reference transcripts, as Debian packages ship it. A scripted participant
 * can play one of these instead of flite's voice (`{ at, clip: 'librivox/<name>' }`), and
 * bench/wer.ts measures the recognizer on them. Clips are named `<set>/<name>`; only what these
 * packages hold can be named, never a path.
 */
export interface Recording {
  /** `<set>/<name>`, what a script names. */
  id: string;
  set: string;
  path: string;
  /** What is said, as the package's transcript gives it. */
  text: string;
}

export interface RecordingSet {
  name: string;
  /** The Debian packages that hold it (what to install when it is missing). */
  packages: string[];
  description: string;
  recordings: Recording[];
}

interface SetSource {
  name: string;
  packages: string[];
  description: string;
  /** The set's clips, or null when its package is not installed. */
  read(root: string): { name: string; path: string; text: string }[] | null;
}

const POCKETSPHINX_TEST_DATA = 'usr/share/pocketsphinx/test/data';
const ASTERISK_SOUNDS = 'usr/share/asterisk/sounds/en_US_f_Allison';
const ASTERISK_TRANSCRIPT = 'usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz';
/** Asterisk prompts this long or longer (shorter ones are single words like "Activated."). */
const ASTERISK_MIN_WORDS = 6;

/** Sphinx transcription lines: `<s> words </s> (file id)`. */
export function parseSphinxTranscription(text: string): { name: string; text: string }[] {
  const lines: { name: string; text: string }[] = [];
  for (const line of text.split('\n')) {
    const match = /^(.*)\(([^()\s]+)\)\s*$/.exec(line.trim());
    if (!match) continue;
    const words = match[1]!
      .replace(/<\/?s>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (words) lines.push({ name: match[2]!, text: words });
  }
  return lines;
}

/**
 * Asterisk's prompt list (`name: What is said.`), keeping prompts whose text is plain words: not
 * the tones (`[beep]`), digits and spelled-out key names a transcript can't be compared with.
 */
export function parseAsteriskPrompts(text: string, minWords: number): { name: string; text: string }[] {
  const prompts: { name: string; text: string }[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-z0-9_-]+): ([A-Za-z ,.'?!-]+)$/.exec(line.trim());
    if (!match) continue;
    const words = match[2]!.trim();
    if (words.split(/\s+/).length >= minWords) prompts.push({ name: match[1]!, text: words });
  }
  return prompts;
}

function sphinxSet(folder: string, transcription: string) {
  return (root: string) => {
    const dir = join(root, POCKETSPHINX_TEST_DATA, folder);
    const file = join(dir, transcription);
    if (!existsSync(file)) return null;
    return parseSphinxTranscription(readFileSync(file, 'utf8')).map((line) => ({
      ...line,
      path: join(dir, `${line.name}.wav`),
    }));
  };
}

const SOURCES: SetSource[] = [
  {
    name: 'librivox',
    packages: ['pocketsphinx-testdata'],
    description: 'LibriVox audiobook, Sense and Sensibility, one male reader (16 kHz)',
    read: sphinxSet('librivox', 'transcription'),
  },
  {
    name: 'cards',
    packages: ['pocketsphinx-testdata'],
    description: 'playing cards called out ("seven of hearts"), one speaker (16 kHz)',
    read: sphinxSet('cards', 'cards.transcription'),
  },
  {
    name: 'asterisk',
    packages: ['asterisk-core-sounds-en', 'asterisk-core-sounds-en-wav'],
    description: `Asterisk's telephone prompts of ${ASTERISK_MIN_WORDS} words or more, one female voice (8 kHz telephone band)`,
    read: (root) => {
      const transcript = join(root, ASTERISK_TRANSCRIPT);
      if (!existsSync(transcript)) return null;
      const prompts = parseAsteriskPrompts(
        gunzipSync(readFileSync(transcript)).toString('utf8'),
        ASTERISK_MIN_WORDS,
      );
      return prompts.map((prompt) => ({
        ...prompt,
        path: join(root, ASTERISK_SOUNDS, `${prompt.name}.wav`),
      }));
    },
  },
];

export const RECORDING_SET_NAMES = SOURCES.map((source) => source.name);

/** The installed sets, each clip present on disk; read once, on first use. */
export class RecordingCatalog {
  private loaded: RecordingSet[] | null = null;
  private byId = new Map<string, Recording>();

  /** `root` is where the packages' files are found (the file system root; tests point elsewhere). */
  constructor(private readonly root: string = '/') {}

  sets(): RecordingSet[] {
    if (this.loaded) return this.loaded;
    const sets: RecordingSet[] = [];
    for (const source of SOURCES) {
      const clips = source.read(this.root);
      if (!clips) continue;
      const recordings = clips
        .filter((clip) => existsSync(clip.path))
        .map((clip) => ({
          id: `${source.name}/${clip.name}`,
          set: source.name,
          path: clip.path,
          text: clip.text,
        }));
      if (recordings.length === 0) continue;
      sets.push({
        name: source.name,
        packages: source.packages,
        description: source.description,
        recordings,
      });
    }
    this.loaded = sets;
    this.byId = new Map(sets.flatMap((set) => set.recordings.map((recording) => [recording.id, recording])));
    return sets;
  }

  get(id: string): Recording | undefined {
    this.sets();
    return this.byId.get(id);
  }

  /** Why `id` names no recording here, for an error message. */
  whyMissing(id: string): string {
    const setName = id.split('/')[0] ?? '';
    const source = SOURCES.find((candidate) => candidate.name === setName);
    if (!source) return `unknown recording set '${setName}' (known: ${RECORDING_SET_NAMES.join(', ')})`;
    if (!this.sets().some((set) => set.name === setName)) {
      return `recording set '${setName}' is not installed (apt-get install ${source.packages.join(' ')})`;
    }
    return `no recording '${id}' in set '${setName}'`;
  }
}
