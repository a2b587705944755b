/**
 * Generated meeting talk for the search benchmark: English sentences drawn from a word list with
 * the skew of real speech (a few words very common, most rare: Zipf), meeting phrases ("action
 * item", "next quarter"), project code names that occur a few dozen times in two million segments,
 * and some German. Seeded, so every run loads the same text.
 */

/** A seeded generator of floats in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Function words: about half of what people say, all stop words to Postgres' English stemmer.
const FUNCTION_WORDS = (
  'the a an and or but so if then that this these those it its we you they i he she our your their ' +
  'is are was were be been being have has had do does did will would can could should might must ' +
  'to of in on at for with from by about into over after before up down out just also very really ' +
  'not no yes all some any more most other such only own same than too again there here when where ' +
  'what which who how why me us them my his her'
).split(' ');

// Content words, most common first (the order gives their Zipf rank).
const CONTENT_WORDS = (
  'think know going need want make get see look right okay work team time people week thing good ' +
  'project customer release question update plan data issue meeting review problem product design ' +
  'support feature budget deadline sprint report number test change call email document version ' +
  'idea point part place case today tomorrow yesterday morning afternoon monday tuesday wednesday ' +
  'thursday friday agree decide discuss share send check start finish move keep help try talk ask ' +
  'tell give take put write read build ship fix deploy measure launch schedule follow prepare ' +
  'cost price contract sales marketing revenue growth target goal quarter month year status risk ' +
  'priority backlog ticket bug server database network client service api performance latency ' +
  'memory storage security access account login password migration upgrade backup monitoring ' +
  'dashboard metric alert incident outage recovery rollback pipeline build branch merge commit ' +
  'code reviewer approval requirement specification scope estimate effort resource hiring ' +
  'interview candidate onboarding training feedback survey user research prototype mockup ' +
  'wireframe layout color font logo brand website page mobile app android iphone tablet browser ' +
  'chrome safari firefox windows linux cloud region cluster node container image docker kubernetes ' +
  'invoice payment refund discount license subscription renewal partner vendor supplier shipment ' +
  'warehouse inventory order delivery logistics legal compliance audit policy privacy consent ' +
  'office travel conference workshop presentation slide agenda minutes summary decision action ' +
  'owner stakeholder manager director engineer designer analyst consultant intern ' +
  'europe america asia germany france london berlin paris tokyo singapore sydney toronto ' +
  'happy worried excited confident unclear important urgent simple difficult expensive cheap ' +
  'fast slow early late soon later already almost probably maybe definitely exactly basically ' +
  'analysis forecast spreadsheet chart graph table column row field value record entry ' +
  'approve reject escalate assign prioritize investigate reproduce document summarize clarify ' +
  'align sync handover rollout pilot trial beta launch campaign newsletter webinar demo ' +
  'weather lunch coffee holiday vacation weekend birthday traffic train flight hotel'
).split(/\s+/);

// Two-word phrases meetings are full of; each counts as one pick.
const PHRASES = [
  'action item',
  'next quarter',
  'follow up',
  'next steps',
  'due date',
  'end of the month',
  'root cause',
  'go live',
  'user story',
  'release notes',
  'budget review',
  'customer feedback',
  'board meeting',
  'sales pipeline',
  'code freeze',
  'load test',
  'quarterly report',
  'product roadmap',
];

// Code names: each occurs in a few dozen of two million segments (the "rare word").
export const CODE_NAMES = Array.from({ length: 150 }, (_, index) => {
  const syllables = ['zan', 'quo', 'vex', 'lir', 'dra', 'mok', 'tez', 'pul', 'ryn', 'sol', 'kav', 'bex'];
  const a = syllables[index % syllables.length]!;
  const b = syllables[Math.floor(index / syllables.length) % syllables.length]!;
  return `${a}${b}ion`;
});

const GERMAN_WORDS = (
  'der die das und oder aber wir ihr sie ich ist sind war haben hat werden wird nicht auch noch ' +
  'schon sehr mit von zu im am für auf aus bei nach über unter vor ' +
  'Haus Häuser Hauses Projekt Projekte Projekten Kunde Kunden Besprechung Besprechungen Termin ' +
  'Termine Budget Bericht Berichte Entscheidung Entscheidungen Aufgabe Aufgaben Woche Wochen ' +
  'Zahlen Vertrag Verträge Angebot Angebote Lieferung Lieferungen Rechnung Rechnungen Team ' +
  'besprechen entscheiden liefern prüfen schicken senden planen arbeiten brauchen machen ' +
  'gut schlecht wichtig dringend schnell langsam morgen heute gestern nächste letzte'
).split(/\s+/);

export const FIRST_NAMES = (
  'Ann Bo Cy Dana Eli Fay Gus Hana Ivan Jade Kai Lena Max Nia Omar Pia Quinn Rosa Sam Tara Uma ' +
  'Vic Wes Xena Yuri Zoe Alex Ben Carla Dev Emma Finn Gina Hugo Iris Jon Kira Liam Maya Noah'
).split(' ');
const LAST_NAMES = (
  'Lee Chen Patel Garcia Smith Novak Rossi Müller Dubois Tanaka Kim Silva Olsen Khan Nowak ' +
  'Brown Costa Weber Martin Sato'
).split(' ');

const TEAMS = ['Platform', 'Mobile', 'Growth', 'Payments', 'Data', 'Design', 'Support', 'Sales', 'Infra'];
const CUSTOMERS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne', 'Wonka', 'Tyrell'];

/** Picks content-word ranks with a Zipf(1.0) law over the list. */
function zipfPicker(size: number, random: () => number): () => number {
  const cumulative: number[] = [];
  let sum = 0;
  for (let rank = 1; rank <= size; rank += 1) {
    sum += 1 / rank;
    cumulative.push(sum);
  }
  return () => {
    const target = random() * sum;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

export class MeetingTalk {
  private readonly pickContent: () => number;
  private readonly pick = <T>(items: readonly T[]): T => items[Math.floor(this.random() * items.length)]!;

  constructor(private readonly random: () => number) {
    this.pickContent = zipfPicker(CONTENT_WORDS.length, random);
  }

  /** One utterance of 4–30 words. */
  sentence(language: 'en' | 'de' = 'en'): string {
    const length = 4 + Math.floor(this.random() * this.random() * 27);
    const words: string[] = [];
    if (language === 'de') {
      for (let index = 0; index < length; index += 1) words.push(this.pick(GERMAN_WORDS));
    } else {
      for (let index = 0; index < length; index += 1) {
        const roll = this.random();
        if (roll < 0.45) words.push(this.pick(FUNCTION_WORDS));
        else if (roll < 0.47) words.push(this.pick(PHRASES));
        else if (roll < 0.47015) words.push(this.pick(CODE_NAMES));
        else words.push(CONTENT_WORDS[this.pickContent()]!);
      }
    }
    const text = words.join(' ');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}${this.pick(['.', '.', '.', '?', '!'])}`;
  }

  participants(): string[] {
    const count = 2 + Math.floor(this.random() * 7);
    const names = new Set<string>();
    while (names.size < count) names.add(`${this.pick(FIRST_NAMES)} ${this.pick(LAST_NAMES)}`);
    return [...names];
  }

  meetingName(): string {
    const kind = Math.floor(this.random() * 6);
    if (kind === 0) return `${this.pick(TEAMS)} weekly sync`;
    if (kind === 1) return `${this.pick(CUSTOMERS)} customer call`;
    if (kind === 2) return `Budget review Q${1 + Math.floor(this.random() * 4)}`;
    if (kind === 3) return `Sprint ${1 + Math.floor(this.random() * 60)} planning`;
    if (kind === 4) return `${this.pick(FIRST_NAMES)} / ${this.pick(FIRST_NAMES)} one on one`;
    return `${this.pick(TEAMS)} ${this.pick(['retro', 'standup', 'design review', 'incident review'])}`;
  }

  notes(): string {
    const sentences = 2 + Math.floor(this.random() * 5);
    return Array.from({ length: sentences }, () => this.sentence()).join(' ');
  }
}
