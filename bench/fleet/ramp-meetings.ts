/**
 * The ramp of a fleet run: --meetings meetings sent through POST /bots (--post-concurrency at a
 * time, spread over the APIs, each user's share with its key), then a wait until every one the API
 * took is in its call (or has ended or failed), at most --ramp-timeout.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { callApi, failureKey } from './api-client.js';
import type { FleetUser } from './create-users.js';
import { MEETING_ORIGIN, type Meeting, meetCode, PLATFORM } from './fleet-meetings.js';
import { inParallel } from './in-parallel.js';
import type { FleetOptions } from './options.js';
import { meetingsByStatus } from './postgres-readings.js';
import type { RunLog } from './run-log.js';
import type { ApiService } from './services.js';
import type { Db } from './start-stores.js';

export interface Ramp {
  /** The meetings POST /bots took, in the order it answered. */
  meetings: Meeting[];
  /** The meetings with an id, the ones readers watch and the stop ends. */
  live: Meeting[];
  /** Each POST /bots' time, ms. */
  postMs: number[];
  /** The failed POSTs by status and the start of their answer. */
  postFailures: Record<string, number>;
  /** From the first POST to the last answer. */
  postSeconds: number;
  /** From the first POST to every meeting settled. */
  allActiveSeconds: number;
  /** Meetings active once settled. */
  activeCount: number;
}

export async function rampMeetings(
  options: FleetOptions,
  apis: ApiService[],
  users: FleetUser[],
  db: Db,
  log: RunLog,
): Promise<Ramp> {
  const meetings: Meeting[] = [];
  const postMs: number[] = [];
  const postFailures: Record<string, number> = {};
  const rampStart = Date.now();
  await inParallel(
    Array.from({ length: options.meetings }, (_, index) => index),
    options.postConcurrency,
    async (index) => {
      const user = Math.floor(index / options.perUser);
      const nativeId = meetCode(index);
      const answer = await callApi(apis[index % options.apis]!.url, 'POST', '/bots', {
        key: users[user]!.key,
        json: {
          platform: PLATFORM,
          native_meeting_id: nativeId,
          meeting_url: `${MEETING_ORIGIN}/${nativeId}`,
          bot_name: 'Fleet bot',
          language: 'en',
          recording_enabled: options.recording,
        },
      });
      postMs.push(answer.ms);
      if (answer.status === 201) meetings.push({ id: answer.body.id, nativeId, user });
      else {
        const why = failureKey(answer);
        postFailures[why] = (postFailures[why] ?? 0) + 1;
      }
    },
  );
  const postedAt = Date.now();
  log(
    `POST /bots: ${meetings.length} of ${options.meetings} in ${((postedAt - rampStart) / 1000).toFixed(1)} s`,
  );

  let byStatus: Record<string, number> = {};
  const rampDeadline = Date.now() + options.rampTimeoutS * 1000;
  let lastReport = 0;
  for (;;) {
    byStatus = await meetingsByStatus(db);
    const settled = (byStatus.active ?? 0) + (byStatus.completed ?? 0) + (byStatus.failed ?? 0);
    if (settled >= meetings.length || Date.now() > rampDeadline) break;
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      log(`  ${JSON.stringify(byStatus)}`);
    }
    await sleep(500);
  }
  const activeAt = Date.now();
  const activeCount = byStatus.active ?? 0;
  log(
    `${activeCount} active ${((activeAt - rampStart) / 1000).toFixed(1)} s after the first POST ${JSON.stringify(byStatus)}`,
  );
  return {
    meetings,
    live: meetings.filter((meeting) => meeting.id > 0),
    postMs,
    postFailures,
    postSeconds: (postedAt - rampStart) / 1000,
    allActiveSeconds: (activeAt - rampStart) / 1000,
    activeCount,
  };
}
