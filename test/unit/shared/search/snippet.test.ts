import { describe, expect, it } from 'vitest';
import {
  HEADLINE_FROM,
  HEADLINE_TO,
  HIGHLIGHT_END,
  HIGHLIGHT_START,
  snippetOf,
} from '../../../../shared/search/snippet.js';

/** What Postgres' translate(text, HEADLINE_FROM, HEADLINE_TO) does, one character at a time. */
function translate(text: string): string {
  const from = [...HEADLINE_FROM];
  const to = [...HEADLINE_TO];
  return [...text]
    .map((character) => {
      const index = from.indexOf(character);
      return index === -1 ? character : (to[index] ?? '');
    })
    .join('');
}

describe('snippetOf', () => {
  it('turns the headline marks into <mark> and escapes the text', () => {
    const text = translate('Tom & Jerry: <b>budget</b> > 3');
    const headline = text.replace('budget', `${HIGHLIGHT_START}budget${HIGHLIGHT_END}`);
    expect(snippetOf(headline)).toBe('Tom &amp; Jerry: &lt;b&gt;<mark>budget</mark>&lt;/b&gt; &gt; 3');
  });

  it('never takes the text for a mark, whatever private-use characters it had', () => {
    const text = translate(`a ${HIGHLIGHT_START}b${HIGHLIGHT_END} \uE002 \uE003 \uE004 <mark>`);
    expect(snippetOf(text)).toBe('a \uFFFDb\uFFFD \uFFFD \uFFFD \uFFFD &lt;mark&gt;');
  });
});
