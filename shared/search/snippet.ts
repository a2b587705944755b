/**
 * ts_headline drops what its parser takes for markup (`<b>`, `a<b b>c`, entities), so the text it is
 * given has `<`, `>` and `&` replaced by private-use characters, and its marks around matches are
 * two more of them; any the text had are replaced by U+FFFD first. A headline is therefore made of
 * the text's own characters and these five, which snippetOf turns into escapes and marks.
 */
export const HIGHLIGHT_START = '\uE000';
export const HIGHLIGHT_END = '\uE001';
const LESS_THAN = '\uE002';
const GREATER_THAN = '\uE003';
const AMPERSAND = '\uE004';

/** translate(text, HEADLINE_FROM, HEADLINE_TO): the text as ts_headline is given it. */
export const HEADLINE_FROM = `${HIGHLIGHT_START}${HIGHLIGHT_END}${LESS_THAN}${GREATER_THAN}${AMPERSAND}<>&`;
export const HEADLINE_TO = `\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD${LESS_THAN}${GREATER_THAN}${AMPERSAND}`;

/** What surrounds each match in a snippet. */
export const MARK_OPEN = '<mark>';
export const MARK_CLOSE = '</mark>';

const OUT: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  [AMPERSAND]: '&amp;',
  [LESS_THAN]: '&lt;',
  [GREATER_THAN]: '&gt;',
  [HIGHLIGHT_START]: MARK_OPEN,
  [HIGHLIGHT_END]: MARK_CLOSE,
};
const SPECIAL = /[&<>\uE000-\uE004]/g;

/**
 * A headline as the API shows it: the text HTML-escaped (`&`, `<`, `>`), each match between `<mark>`
 * and `</mark>`. So the snippet is safe to put into a page as it is, and a `<mark>` in it is always
 * ours: one spoken or typed shows as `&lt;mark&gt;`.
 */
export function snippetOf(headline: string): string {
  return headline.replace(SPECIAL, (character) => OUT[character] ?? character);
}
