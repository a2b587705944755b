import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { COLLECT_EVIDENCE_SCRIPT } from '../../../bot/platforms/evidence.js';
import { MEET_SPEAKING_SCRIPT, TEAMS_SPEAKING_SCRIPT } from '../../../bot/platforms/speaking-scripts.js';
import { TILE_HELPERS } from '../../../bot/platforms/tile-scripts.js';

/**
 * Just enough of the DOM for the tile helpers: elements with attributes, text and children, and
 * the selectors the helpers use (tag, .class, [attribute], [attribute="value"], lists of them).
 * A selector outside that throws, so the helpers cannot quietly outgrow what this checks.
 */
class Element {
  readonly children: Element[] = [];
  parentElement: Element | null = null;
  private readonly attributes: Map<string, string>;
  private readonly content: Array<Element | string>;

  constructor(
    readonly tagName: string,
    attributes: Record<string, string> = {},
    ...content: Array<Element | string>
  ) {
    this.attributes = new Map(Object.entries(attributes));
    this.content = content;
    for (const child of content) {
      if (typeof child === 'string') continue;
      child.parentElement = this;
      this.children.push(child);
    }
  }

  get textContent(): string {
    return this.content.map((child) => (typeof child === 'string' ? child : child.textContent)).join('');
  }

  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }

  hasAttribute(name: string): boolean {
    return this.attributes.has(name);
  }

  querySelectorAll(selector: string): Element[] {
    const matches = parseSelector(selector);
    const found: Element[] = [];
    const walk = (element: Element) => {
      for (const child of element.children) {
        if (matches(child)) found.push(child);
        walk(child);
      }
    };
    walk(this);
    return found;
  }

  querySelector(selector: string): Element | null {
    return this.querySelectorAll(selector)[0] ?? null;
  }

  closest(selector: string): Element | null {
    const matches = parseSelector(selector);
    for (let element: Element | null = this; element; element = element.parentElement)
      if (matches(element)) return element;
    return null;
  }
}

function parseSelector(selector: string): (element: Element) => boolean {
  const alternatives = selector.split(',').map((part) => {
    const compound = /^([a-z]+)?((?:\.[\w-]+)*)((?:\[[\w-]+(?:="[^"]*")?\])*)$/.exec(part.trim());
    if (!compound) throw new Error(`selector not supported by this test's DOM: ${part}`);
    const [, tag, classes = '', attributes = ''] = compound;
    const classNames = classes.split('.').filter(Boolean);
    const conditions = [...attributes.matchAll(/\[([\w-]+)(?:="([^"]*)")?\]/g)].map(([, name, value]) => ({
      name: name!,
      value,
    }));
    return (element: Element) =>
      (!tag || element.tagName === tag) &&
      classNames.every((name) => (element.getAttribute('class') ?? '').split(/\s+/).includes(name)) &&
      conditions.every(({ name, value }) =>
        value === undefined ? element.hasAttribute(name) : element.getAttribute(name) === value,
      );
  });
  return (element) => alternatives.some((matches) => matches(element));
}

const h = (tag: string, attributes: Record<string, string> = {}, ...content: Array<Element | string>) =>
  new Element(tag, attributes, ...content);

interface Helpers {
  meetTileName(tile: Element): string | null;
  meetTiles(): Array<{ tile: Element; id: string; name: string | null; self: boolean }>;
  meetPeopleLists(): Element[];
  meetPerson(row: Element): { name: string; self: boolean };
  teamsTiles(): Array<{ tile: Element; name: string }>;
}

/** The helpers as the page runs them, against `body`. */
function helpersOn(body: Element): Helpers {
  const document = { querySelectorAll: (selector: string) => body.querySelectorAll(selector) };
  return new Function(
    'document',
    `${TILE_HELPERS}; return { meetTileName, meetTiles, meetPeopleLists, meetPerson, teamsTiles };`,
  )(document) as Helpers;
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('the tile page helpers', () => {
  it('are the only copy: every page script carries them and reads tiles and names no other way', () => {
    for (const script of [COLLECT_EVIDENCE_SCRIPT, MEET_SPEAKING_SCRIPT, TEAMS_SPEAKING_SCRIPT]) {
      expect(occurrences(script, TILE_HELPERS)).toBe(1);
      for (const mark of [
        'notranslate',
        'data-self-name',
        "'[data-participant-id]'",
        'data-stream-type="Video"',
      ])
        expect(occurrences(script, mark), mark).toBe(occurrences(TILE_HELPERS, mark));
    }
  });

  it('leave every page script valid JavaScript', () => {
    for (const script of [COLLECT_EVIDENCE_SCRIPT, MEET_SPEAKING_SCRIPT, TEAMS_SPEAKING_SCRIPT])
      expect(() => new Script(script)).not.toThrow();
  });

  describe('on a Meet call', () => {
    const selfTile = h(
      'div',
      { 'data-participant-id': 'spaces/a/devices/9', 'data-self-name': 'Notetaker' },
      h('div', { 'aria-hidden': 'true' }, 'N'),
      h('span', {}, 'You'),
    );
    const aliceTile = h(
      'div',
      { 'data-participant-id': 'spaces/a/devices/1' },
      h('div', { 'aria-hidden': 'true' }, 'A'),
      h('i', {}, 'more_vert'),
      h('div', {}, h('span', {}, 'More options for Alice Martin')),
      h('span', { class: 'name notranslate' }, 'Alice Martin'),
    );
    const peopleList = h(
      'div',
      { role: 'list', 'aria-label': 'Participants' },
      h(
        'div',
        { role: 'listitem', 'data-participant-id': 'spaces/a/devices/7' },
        h('span', { class: 'notranslate' }, 'Bob Chen'),
      ),
      h(
        'div',
        { role: 'listitem', 'aria-label': 'Notetaker', 'data-participant-id': 'spaces/a/devices/9' },
        h('span', {}, 'Notetaker'),
        h('span', {}, '(Sie)'),
      ),
    );
    const body = h('body', {}, h('main', {}, aliceTile, selfTile), h('aside', {}, peopleList));
    const page = helpersOn(body);

    it("names the bot's own tile by data-self-name, not by the 'You' it shows", () => {
      expect(page.meetTileName(selfTile)).toBe('Notetaker');
    });

    it('names a tile by its span.notranslate before hover labels, avatar initials and icon ligatures', () => {
      expect(page.meetTileName(aliceTile)).toBe('Alice Martin');
    });

    it('lists tiles once each with the bot’s marked, and leaves People-list rows out', () => {
      expect(page.meetTiles().map(({ id, name, self }) => ({ id, name, self }))).toEqual([
        { id: 'spaces/a/devices/1', name: 'Alice Martin', self: false },
        { id: 'spaces/a/devices/9', name: 'Notetaker', self: true },
      ]);
    });

    it('reads People-list rows, telling the viewer’s row by its marker in German too', () => {
      const [list] = page.meetPeopleLists();
      expect(list).toBe(peopleList);
      expect(list!.querySelectorAll('[role="listitem"]').map((row) => page.meetPerson(row))).toEqual([
        { name: 'Bob Chen', self: false },
        { name: 'Notetaker', self: true },
      ]);
    });
  });

  it('takes a name attribute on the tile itself, whichever of them it is', () => {
    const page = helpersOn(h('body'));
    for (const attribute of ['data-self-name', 'data-participant-name', 'data-name'])
      expect(page.meetTileName(h('div', { [attribute]: ' Carol ' }, h('span', {}, 'hover label')))).toBe(
        'Carol',
      );
  });

  it('passes over an empty name attribute to the next clue rather than failing', () => {
    const page = helpersOn(h('body'));
    const tile = h(
      'div',
      {},
      h('div', { 'data-participant-name': '' }),
      h('span', { class: 'notranslate' }, 'Dana'),
    );
    expect(page.meetTileName(tile)).toBe('Dana');
  });

  it('names Teams video tiles by their data-tid and skips unnamed ones', () => {
    const named = h('div', { 'data-stream-type': 'Video', 'data-tid': 'Alice Martin' });
    const page = helpersOn(h('body', {}, named, h('div', { 'data-stream-type': 'Video', 'data-tid': '' })));
    expect(page.teamsTiles()).toEqual([{ tile: named, name: 'Alice Martin' }]);
  });
});
