import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLinks, headingAnchors } from '../../support/markdown-links.js';

/**
 * The docs move and their headings get renamed; a link that then leads nowhere is found here
 * rather than by a reader.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const PAGES = [
  'README.md',
  'simulator/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('relative links in the README and docs/', () => {
  it.each(PAGES)('%s: every relative link points at a file and heading that exist', (page) => {
    expect(brokenLinks(ROOT, join(ROOT, page))).toEqual([]);
  });

  it('the checker itself finds a missing file, a missing heading and a link leaving the repository', () => {
    const page = join(ROOT, 'docs', 'example.md');
    const markdown = [
      '# Example',
      '## Keys and users (admin)',
      'Fine: [a](api.md), [b](#keys-and-users-admin), [c](../README.md#quick-start), [d](https://example.com/x).',
      'Broken: [e](nowhere.md), [f](#no-such-heading), [g](../../outside.md), [h](api.md#not-there).',
      'Not links: `[i](code.md)` and',
      '```',
      '[j](fenced.md)',
      '```',
    ].join('\n');
    expect(brokenLinks(ROOT, page, markdown).map((link) => link.target)).toEqual([
      'nowhere.md',
      '#no-such-heading',
      '../../outside.md',
      'api.md#not-there',
    ]);
  });

  it('names anchors as GitHub does', () => {
    const anchors = headingAnchors(
      '# Decisions where the spec says "not shown"\n## Capacity: real time (issue 12)\n## `BOT_SLOTS` and more\n## Scale\n## Scale\n',
    );
    expect([...anchors]).toEqual([
      'decisions-where-the-spec-says-not-shown',
      'capacity-real-time-issue-12',
      'bot_slots-and-more',
      'scale',
      'scale-1',
    ]);
  });
});
