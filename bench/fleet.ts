/**
 * The fleet at scale, by simulation (issue 50, part 4): M concurrent meetings, each with a simulated
 * bot that speaks the bot's side of the stream contract through the real bot's publishing code
 * (bench/fleet/simulated-bot.ts: statuses, segments revised as they grow then final, participants,
 * liveness, recording chunks every 5 s, live audio), against one Redis and one Postgres of the
 * bench's own, the real API (--apis processes) and --workers real worker processes, each running its
 * bots through a simulated runtime (bench/fleet/simulated-runtime.ts) instead of a container engine,
 * with live readers on SSE and WebSocket and webhooks to a receiver on 127.0.0.1. Meetings are sent
 * through POST /bots (users with a limit high enough, meeting URLs on a loopback origin allowed by
 * EXTRA_MEETING_ORIGINS that nothing loads), measured for --seconds once all are active, then
 * stopped through DELETE /bots. Prints a table and one JSON line.
 *   nice -n 19 npx tsx bench/fleet.ts [--meetings 20] [--workers 2] [--apis 1] [--seconds 60]
 *     [--readers 10] [--ws-meetings 50] [--webhooks on|off] [--recording on|off] [--audio on|off]
 *     [--revision-ms 1500] [--meeting-seconds 0] [--meetings-per-user 1000] [--pool 10]
 *     [--pg-max-connections 100] [--redis-maxclients 10000] [--redis-aof on|off]
 *     [--post-concurrency 16] [--ramp-timeout <s>] [--cpu-prof]
 * Segment commit latency: each simulated bot puts its publish time in the segment's
 * `absolute_end_time`; the row's `updated_at` is the ingest transaction's now(). Everything it started
 * (processes, its Redis with every key and ACL user, its Postgres cluster, temporary directories) is
 * removed at the end and on Ctrl-C.
 *
 * The run's phases, each in bench/fleet/: options.ts, start-stores.ts, start-services.ts,
 * create-users.ts, peak-sampler.ts, ramp-meetings.ts, measure-window.ts, stop-and-drain.ts,
 * end-state.ts, fleet-result.ts, result-table.ts.
 */
import { Cleanups } from './fleet/cleanups.js';
import { createUsers } from './fleet/create-users.js';
import { readEndState } from './fleet/end-state.js';
import { fleetResult } from './fleet/fleet-result.js';
import { measureWindow } from './fleet/measure-window.js';
import { parseFleetOptions } from './fleet/options.js';
import { startPeakSampler } from './fleet/peak-sampler.js';
import { childrenOf } from './fleet/process-stats.js';
import { rampMeetings } from './fleet/ramp-meetings.js';
import { printResultTable } from './fleet/result-table.js';
import { startRunLog } from './fleet/run-log.js';
import { startServices } from './fleet/start-services.js';
import { startStores } from './fleet/start-stores.js';
import { stopAndDrain } from './fleet/stop-and-drain.js';

const options = parseFleetOptions();
const log = startRunLog();
const cleanups = new Cleanups();
cleanups.installSignalHandlers(log);

try {
  // The stores (a Redis and a Postgres cluster of the bench's own), then the service on them.
  const stores = await startStores(options.stores(), cleanups, log);
  const services = await startServices(options, stores, cleanups, log);
  const users = await createUsers(options, services);
  const sampler = startPeakSampler(stores, services.prefix, cleanups, log);

  // M meetings through POST /bots, until every bot is in its call; then the measured window.
  const ramp = await rampMeetings(options, services.apis, users, stores.db, log);
  const measured = await measureWindow({ options, stores, services, users, ramp, sampler }, cleanups, log);

  // Every meeting stopped through DELETE /bots, until every bot is gone and every webhook out.
  const stop = await stopAndDrain(options, stores, services, users, ramp.live);
  const end = await readEndState(stores, services);
  await sampler.stop();

  const result = fleetResult({ options, stores, services, ramp, measured, stop, end });
  printResultTable(result);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  log(`failed: ${(error as Error).stack ?? error}`);
  process.exitCode = 1;
} finally {
  await cleanups.run(log);
  // Anything this process started that is still there (an API that never answered, say), by its pid.
  for (const pid of childrenOf(process.pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  log('cleaned up');
}
process.exit(process.exitCode ?? 0);
