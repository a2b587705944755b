import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveChatMessages } from '../../../shared/chat/ingest.js';
import { listChatMessagesSince } from '../../../shared/chat/store.js';
import { saveSegments } from '../../../shared/transcripts/ingest.js';
import { listSegmentsChangedSince } from '../../../shared/transcripts/store.js';
import { googleMeetBot, startTestApi, type TestApi } from '../../support/api.js';
import { segmentRow } from '../../support/segments.js';

let api: TestApi;
let meetingId: number;

beforeAll(async () => {
  api = await startTestApi();
  const user = await api.createUser();
  meetingId = (await api.request('POST', '/bots', { key: user.key, json: googleMeetBot('ord-erme-etx') }))
    .body.id;
});
afterAll(() => api.close());

/** An event receiver that holds its writer's transaction open, after the write, until released. */
function holdingReceiver() {
  let entered!: () => void;
  let release!: () => void;
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const hold = async () => {
    entered();
    await released;
  };
  return { hold, inside, release };
}

/**
 * Two workers may ingest one bot's stream at once (a consumer group hands them different messages).
 * If the later-numbered write committed first, a live reader could pass the earlier number before
 * it commits and never send it: what a live client resumes from must be a prefix of the history.
 */
describe("a meeting's numbered history is committed in number order", () => {
  it('segments: a second writer waits for the first to commit', async () => {
    const db = api.database.db;
    const first = holdingReceiver();
    const firstWrite = saveSegments(db, { transcriptSegmentsWritten: first.hold }, [
      segmentRow(meetingId, 'a', 0, 1, 'first writer', null),
    ]);
    await first.inside;
    const secondWrite = saveSegments(db, { transcriptSegmentsWritten: async () => undefined }, [
      segmentRow(meetingId, 'b', 1, 2, 'second writer', null),
    ]);
    await sleep(300);
    // What a live reader reads meanwhile: not the second writer's segment ahead of the first's.
    expect(await listSegmentsChangedSince(db, [{ meetingId, after: 0 }])).toEqual([]);
    first.release();
    const [a, b] = await Promise.all([firstWrite, secondWrite]);
    expect(b.written[0]!.changeSeq).toBeGreaterThan(a.written[0]!.changeSeq);
    expect((await listSegmentsChangedSince(db, [{ meetingId, after: 0 }])).map((s) => s.text)).toEqual([
      'first writer',
      'second writer',
    ]);
  });

  it('chat messages: a second writer waits for the first to commit', async () => {
    const db = api.database.db;
    const message = (key: string, text: string) => ({
      meetingId,
      messageKey: key,
      sender: 'Ann',
      text,
      fromBot: false,
      sentAt: new Date(),
      start: 1,
    });
    const first = holdingReceiver();
    const firstWrite = saveChatMessages(db, { chatMessagesWritten: first.hold }, [message('k1', 'first')]);
    await first.inside;
    const secondWrite = saveChatMessages(db, { chatMessagesWritten: async () => undefined }, [
      message('k2', 'second'),
    ]);
    await sleep(300);
    expect(await listChatMessagesSince(db, [{ meetingId, after: 0 }])).toEqual([]);
    first.release();
    await Promise.all([firstWrite, secondWrite]);
    expect((await listChatMessagesSince(db, [{ meetingId, after: 0 }])).map((m) => m.text)).toEqual([
      'first',
      'second',
    ]);
  });
});
