/**
 * What reporting participants costs the bot per look at the call. The page work is unchanged: the
 * names come from the evidence every look already collects (tiles, Meet's People list), so the
 * added work is in Node: deriving the names from that evidence, the roster diff and the speech
 * debounce. This times one look with and without it, on synthetic evidence of N people (steady,
 * and with a join and a leave every look), with speaking indicators flickering for 10% of them,
 * five runs each way (the medians), and prints the added microseconds per look (the bot looks once a second) and the messages sent.
 *
 *   npx tsx bench/participant-events.ts [--looks 2000]
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { ParticipantReporter } from '../bot/participants/reporter.js';
import type { PageEvidence } from '../bot/platforms/evidence.js';
import { observeMeet } from '../bot/platforms/google-meet-screens.js';
import { observeTeams } from '../bot/platforms/teams-screens.js';

const { values } = parseArgs({ options: { looks: { type: 'string', default: '2000' } } });
const LOOKS = Number(values.looks);

const meetToolbar = [
  'leave call',
  'turn off microphone',
  'turn off camera',
  'chat with everyone',
  'show everyone',
  'more options',
];
const teamsToolbar = ['leave', 'more', 'chat', 'people'];

function evidence(platform: 'google_meet' | 'teams', names: string[]): PageEvidence {
  const control = (label: string, tid: string | null = null) => ({
    label,
    text: '',
    tid,
    id: null,
    disabled: false,
    visible: true,
    inDialog: false,
    state: '',
  });
  const tiles = names.map((name, index) => ({ id: `spaces/x/devices/${index}`, name, self: false }));
  return {
    url: 'http://127.0.0.1/',
    text: '',
    controls:
      platform === 'google_meet'
        ? meetToolbar.map((label) => control(label))
        : [control('leave', 'hangup-main-btn'), ...teamsToolbar.map((label) => control(label))],
    inputs: [],
    dialogs: [],
    meetTiles: platform === 'google_meet' ? [...tiles, { id: 'self', name: 'Notetaker', self: true }] : [],
    teamsTiles: platform === 'teams' ? names.map((name) => ({ id: name, name, self: false })) : [],
    peopleCount: names.length + 1,
    people: null,
    headings: [],
    recaptchaChallengeVisible: false,
  };
}

interface Run {
  microsPerLook: number;
  messages: number;
}

function run(platform: 'google_meet' | 'teams', people: number, churn: boolean, report: boolean): Run {
  const log = pino({ level: 'silent' });
  let messages = 0;
  const reporter = new ParticipantReporter({
    publish: () => {
      messages += 1;
    },
    transcriptSeconds: (wall) => wall / 1000,
    botName: () => 'Notetaker',
    log,
  });
  const observe = (page: PageEvidence) =>
    platform === 'google_meet' ? observeMeet(page, undefined, 'Notetaker') : observeTeams(page, 'Notetaker');
  const names = Array.from({ length: people }, (_, i) => `Participant ${i}`);
  // Prebuilt so the timing is the bot's work, not the fixture's.
  const pages = Array.from({ length: 8 }, (_, look) =>
    evidence(platform, churn ? [...names.slice(look % 2), `Guest ${look}`] : names),
  );
  const speakers = names.slice(0, Math.max(1, Math.floor(people / 10)));
  let now = 0;
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let look = 0; look < LOOKS; look += 1) {
    now += 1000;
    const observation = observe(pages[look % pages.length]!);
    sink += observation.others ?? 0;
    if (!report) continue;
    // Indicators flicker twice a second for the speakers between looks.
    for (const [index, name] of speakers.entries()) {
      const on = (look + index) % 6 < 4;
      reporter.speaking({ signal: 'audio_level', name, speaking: on, at: 0 }, now - 500);
      reporter.speaking({ signal: 'audio_level', name, speaking: !on, at: 0 }, now - 250);
    }
    reporter.look(observation.people ?? null, now);
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1000;
  if (sink < 0) console.log(sink);
  return { microsPerLook: elapsed / LOOKS, messages };
}

function median(runs: Run[]): Run {
  return [...runs].sort((a, b) => a.microsPerLook - b.microsPerLook)[Math.floor(runs.length / 2)]!;
}

console.log(`${LOOKS} looks per run (the bot looks once a second: ${LOOKS} s of meeting)`);
console.log('platform     people  churn  look without  look with  added/look  share of 1 s  messages');
for (const platform of ['google_meet', 'teams'] as const) {
  for (const people of [5, 50, 300]) {
    for (const churn of [false, true]) {
      // Warm up, then both ways in turn, five times each: the median of each (the machine is shared).
      run(platform, people, churn, true);
      const withouts: Run[] = [];
      const withs: Run[] = [];
      for (let round = 0; round < 5; round += 1) {
        withouts.push(run(platform, people, churn, false));
        withs.push(run(platform, people, churn, true));
      }
      const without = median(withouts);
      const withReports = median(withs);
      const added = withReports.microsPerLook - without.microsPerLook;
      console.log(
        [
          platform.padEnd(11),
          String(people).padStart(6),
          (churn ? 'yes' : 'no').padStart(6),
          `${without.microsPerLook.toFixed(1)} µs`.padStart(13),
          `${withReports.microsPerLook.toFixed(1)} µs`.padStart(10),
          `${added.toFixed(1)} µs`.padStart(11),
          `${((added / 1_000_000) * 100).toFixed(4)} %`.padStart(13),
          String(withReports.messages).padStart(9),
        ].join('  '),
      );
    }
  }
}
