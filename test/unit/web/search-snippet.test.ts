import { describe, expect, it } from 'vitest';
import { snippetOf } from '../../../shared/search/snippet.js';
import { snippetParts } from '../../../web/src/api/search.js';

describe("the web app's reading of a search snippet", () => {
  it('marks the matches and gives the rest back as the text it was, escapes undone once', () => {
    const snippet = snippetOf('the \uE000budget\uE001 & <b>plan</b> &amp;lt; \uE000budgets\uE001');
    expect(snippet).toBe(
      'the <mark>budget</mark> &amp; &lt;b&gt;plan&lt;/b&gt; &amp;amp;lt; <mark>budgets</mark>',
    );
    expect(snippetParts(snippet)).toEqual([
      { text: 'the ', match: false },
      { text: 'budget', match: true },
      { text: ' & <b>plan</b> &amp;lt; ', match: false },
      { text: 'budgets', match: true },
    ]);
  });

  it('reads a snippet with no match, or only a match', () => {
    expect(snippetParts('plain text')).toEqual([{ text: 'plain text', match: false }]);
    expect(snippetParts('<mark>all</mark>')).toEqual([{ text: 'all', match: true }]);
  });
});
