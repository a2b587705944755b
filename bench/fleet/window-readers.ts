/**
 * The live readers of the measured window (live-readers.ts), as the API's clients would hold them:
 * half of --readers (rounded up) on SSE, one meeting each, spread over the live meetings; the rest
 * on WebSockets, each subscribed to --ws-meetings of one user's meetings. Spread over the APIs.
 */
import type { Cleanups } from './cleanups.js';
import type { FleetUser } from './create-users.js';
import { type Meeting, PLATFORM } from './fleet-meetings.js';
import { openSseReader, openWsReader, type Reader, type Window } from './live-readers.js';
import type { FleetOptions } from './options.js';
import type { ApiService } from './services.js';

export interface WindowReaders {
  sse: Reader[];
  ws: Reader[];
}

/** Opens them all; closed by the run's cleanup if not before. */
export function openWindowReaders(
  options: FleetOptions,
  apis: ApiService[],
  users: FleetUser[],
  live: Meeting[],
  window: Window,
  cleanups: Cleanups,
): WindowReaders {
  const sse: Reader[] = [];
  const ws: Reader[] = [];
  const sseCount = Math.ceil(options.readers / 2);
  const wsCount = Math.floor(options.readers / 2);
  for (let index = 0; index < sseCount && live.length > 0; index += 1) {
    const meeting = live[Math.floor((index * live.length) / sseCount)]!;
    sse.push(
      openSseReader(
        apis[index % options.apis]!.url,
        users[meeting.user]!.key,
        { platform: PLATFORM, nativeId: meeting.nativeId },
        window,
      ),
    );
  }
  for (let index = 0; index < wsCount && live.length > 0; index += 1) {
    const user = index % users.length;
    const own = live.filter((meeting) => meeting.user === user);
    const size = Math.min(options.wsMeetings, own.length);
    if (size === 0) continue;
    const offset = (index * size) % Math.max(1, own.length);
    const ids = Array.from({ length: size }, (_, k) => own[(offset + k) % own.length]!.id);
    ws.push(openWsReader(apis[index % options.apis]!.url, users[user]!.key, ids, window));
  }
  cleanups.add('readers', () => {
    for (const reader of [...sse, ...ws]) reader.close();
  });
  return { sse, ws };
}

export function closeWindowReaders(readers: WindowReaders): void {
  for (const reader of [...readers.sse, ...readers.ws]) reader.close();
}
