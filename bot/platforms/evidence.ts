import { TILE_HELPERS } from './tile-scripts.js';

/**
 * One snapshot of what a meeting page shows, read in a single evaluate so a screen is judged on
 * consistent evidence. Texts are normalised (lower case, straight apostrophes, "..." for "…",
 * single spaces) so the classifiers can compare plain strings.
 */
export interface ControlEvidence {
  /** aria-label, normalised ('' when absent). */
  label: string;
  /** Visible text, normalised and shortened. */
  text: string;
  tid: string | null;
  id: string | null;
  disabled: boolean;
  visible: boolean;
  inDialog: boolean;
  /**
   * A checkbox input's `checked` ('true' / 'false'); otherwise aria-checked / aria-pressed /
   * data-is-muted as found ('' when absent).
   */
  state: string;
}

export interface InputEvidence {
  label: string;
  placeholder: string;
  /** The form field's name attribute ('' when absent), e.g. Microsoft's login form's `loginfmt`. */
  name: string;
  tid: string | null;
  visible: boolean;
  disabled: boolean;
  value: string;
}

export interface TileEvidence {
  /** Meet: data-participant-id; Teams: the tile's data-tid. */
  id: string;
  name: string | null;
  self: boolean;
}

export interface PersonEvidence {
  /** The row's display name (its aria-label, else the name span's text). */
  name: string;
  /** The row says it is the viewer ("(You)", German "(Sie)"). */
  self: boolean;
}

export interface PageEvidence {
  url: string;
  /** The page's visible text, normalised. */
  text: string;
  controls: ControlEvidence[];
  inputs: InputEvidence[];
  /** Texts of visible modal dialogs. */
  dialogs: string[];
  meetTiles: TileEvidence[];
  teamsTiles: TileEvidence[];
  /** "People - N joined" / data-avatar-count when the page shows one (includes the bot). */
  peopleCount: number | null;
  /**
   * Meet's People list (`role="list"` labelled "Participants", German "Teilnehmer") when it is open: one row per person
   * in the call, the bot's own included; null when no such list is on the page.
   */
  people: PersonEvidence[] | null;
  /** Texts of visible headings (h1–h3, role=heading), normalised. */
  headings: string[];
  recaptchaChallengeVisible: boolean;
}

export function normalizeText(value: string): string {
  return value
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/\u2026/g, '...')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** Does a control's label or text match one of the names (exactly, or as "name (shortcut)")? */
export function controlMatches(control: ControlEvidence, names: readonly string[]): boolean {
  return names.some((name) =>
    [control.label, control.text].some((value) => value === name || value.startsWith(`${name} (`)),
  );
}

export function findControl(
  evidence: PageEvidence,
  names: readonly string[],
  options: { visible?: boolean; enabled?: boolean; inDialog?: boolean } = {},
): ControlEvidence | undefined {
  return evidence.controls.find(
    (control) =>
      controlMatches(control, names) &&
      (options.visible === undefined || control.visible === options.visible) &&
      (options.enabled === undefined || control.disabled !== options.enabled) &&
      (options.inDialog === undefined || control.inDialog === options.inDialog),
  );
}

/** A terminal screen recognised by any of its phrases; the first rule that matches wins. */
export interface TextRule<T> {
  phrases: readonly string[];
  screen: T;
}

export function firstTextRule<T>(
  text: string,
  rules: readonly TextRule<T>[],
): (T & { detail: string }) | null {
  for (const rule of rules) {
    const hit = textIncludesAny(text, rule.phrases);
    if (hit) return { ...rule.screen, detail: hit };
  }
  return null;
}

export function textIncludesAny(text: string, phrases: readonly string[]): string | undefined {
  return phrases.find((phrase) => text.includes(phrase));
}

/** Plain JavaScript (see capture-page-script.ts for why): returns a PageEvidence. */
export const COLLECT_EVIDENCE_SCRIPT = `(() => {
  ${TILE_HELPERS}
  const norm = (value) => (value || '')
    .replace(/[\\u2018\\u2019\\u02bc]/g, "'").replace(/\\u2026/g, '...').replace(/\\s+/g, ' ').trim().toLowerCase();
  const isCheckbox = (el) => el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio');
  const visible = (el) => {
    if (!el.isConnected || el.getClientRects().length === 0) return false;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') return false;
    // Styled switches are transparent inputs laid over their drawing: opacity says nothing there.
    return isCheckbox(el) || Number(style.opacity || '1') > 0.05;
  };
  const dialogSelector = '[role=dialog], [role=alertdialog], dialog[open]';
  const controls = [];
  document.querySelectorAll('button, [role=button], [role=switch], [role=checkbox], [role=menuitem], a[href][role], input[type=checkbox]').forEach((el) => {
    if (controls.length >= 300) return;
    controls.push({
      label: norm(el.getAttribute('aria-label')),
      text: norm((el.innerText || el.textContent || '').slice(0, 120)),
      tid: el.getAttribute('data-tid'),
      id: el.id || null,
      disabled: el.disabled === true || el.getAttribute('aria-disabled') === 'true',
      visible: visible(el),
      inDialog: Boolean(el.closest(dialogSelector)),
      state: isCheckbox(el)
        ? String(el.checked)
        : el.getAttribute('aria-checked') || el.getAttribute('aria-pressed') || el.getAttribute('data-is-muted') || '',
    });
  });
  const inputs = [];
  document.querySelectorAll('input:not([type=checkbox]):not([type=hidden]), textarea').forEach((el) => {
    inputs.push({
      label: norm(el.getAttribute('aria-label')),
      placeholder: norm(el.getAttribute('placeholder')),
      name: el.getAttribute('name') || '',
      tid: el.getAttribute('data-tid'),
      visible: visible(el),
      disabled: el.disabled === true || el.readOnly === true,
      value: el.value || '',
    });
  });
  const dialogs = [];
  document.querySelectorAll(dialogSelector).forEach((el) => { if (visible(el)) dialogs.push(norm(el.innerText).slice(0, 500)); });
  const meetTilesFound = meetTiles().map(({ id, name, self }) => ({ id, name, self }));
  const teamsTilesFound = teamsTiles().map(({ name }) => ({ id: name, name, self: false }));
  let peopleCount = null;
  for (const el of document.querySelectorAll('[aria-label], [data-avatar-count]')) {
    const badge = el.getAttribute('data-avatar-count');
    if (badge && /^\\d+$/.test(badge)) { peopleCount = Number(badge); break; }
    const match = /people\\s*-?\\s*(\\d+)\\s*joined/i.exec(el.getAttribute('aria-label') || '');
    if (match) { peopleCount = Number(match[1]); break; }
  }
  let people = null;
  const [list] = meetPeopleLists();
  if (list) {
    people = [];
    list.querySelectorAll('[role=listitem]').forEach((row) => {
      const person = meetPerson(row);
      if (person.name) people.push(person);
    });
  }
  const headings = [];
  document.querySelectorAll('h1, h2, h3, [role=heading]').forEach((el) => {
    if (visible(el)) headings.push(norm(el.innerText).slice(0, 200));
  });
  const recaptchaChallengeVisible = Array.from(document.querySelectorAll('iframe[title*="recaptcha challenge" i], iframe[src*="recaptcha/api2/bframe"]'))
    .some((frame) => visible(frame) && frame.getBoundingClientRect().height > 50);
  return {
    url: location.href,
    text: norm(document.body ? document.body.innerText : '').slice(0, 20000),
    controls, inputs, dialogs, meetTiles: meetTilesFound, teamsTiles: teamsTilesFound,
    peopleCount, people, headings, recaptchaChallengeVisible,
  };
})()`;
