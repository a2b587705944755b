import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { FakeBots } from '../../support/fake-bot.js';
import {
  type Frame,
  type LiveSocketClient,
  openLiveSocket,
  segmentTexts,
  socketUrl,
  transcriptFromFrames,
} from '../../support/live-socket.js';

let api: TestApi;
let replica: TestApi;
let ann: TestUser;
let bob: TestUser;
// The real ingester, as a worker runs it: it commits, then announces the change through Redis.
let bots: FakeBots;
const sockets: LiveSocketClient[] = [];

beforeAll(async () => {
  api = await startTestApi();
  replica = await startTestApi({ replicaOf: api });
  ann = await api.createUser({ maxConcurrentBots: 50 });
  bob = await api.createUser({ maxConcurrentBots: 50 });
  bots = new FakeBots(api);
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await bots.close();
  await replica.close();
  await api.close();
});

async function connect(instance: TestApi, user: TestUser): Promise<LiveSocketClient> {
  const socket = await openLiveSocket(socketUrl(instance.baseUrl), { headers: { 'X-API-Key': user.key } });
  sockets.push(socket);
  return socket;
}

const CURSOR = /^\d+-\d+-\d+-\d+$/;
const dataFrames = (frames: Frame[]) =>
  frames.filter((frame) => ['transcript.mutable', 'meeting.status', 'chat_message'].includes(frame.type));
const statuses = (frames: Frame[], meetingId: number) =>
  frames
    .filter((frame) => frame.type === 'meeting.status' && frame.meeting.id === meetingId)
    .map((frame) => frame.payload.status);

async function restTranscript(user: TestUser, nativeId: string) {
  return (await api.request('GET', `/transcripts/google_meet/${nativeId}`, { key: user.key })).body.segments;
}

describe('/ws live feed', () => {
  it("subscribes to two meetings and gets each one's history, then its segments, status changes and chat as they are committed", async () => {
    const first = await bots.startMeeting(ann, 'wsa-firs-tmt');
    const second = await bots.startMeeting(ann, 'wsa-seco-ndm');
    await bots.event(first.meetingId, first.sessionId, 'active');
    await bots.segment(first.meetingId, first.sessionId, {
      id: 'f1',
      start: 1,
      text: 'said before anyone watched',
    });
    await expect.poll(async () => (await restTranscript(ann, 'wsa-firs-tmt')).length).toBe(1);

    const socket = await connect(api, ann);
    socket.send({
      action: 'subscribe',
      meetings: [{ platform: 'google_meet', native_id: 'wsa-firs-tmt' }, { meeting_id: second.meetingId }],
    });
    const subscribed = await socket.next((frame) => frame.type === 'subscribed');
    expect(subscribed.meetings).toEqual([
      { meeting_id: first.meetingId, platform: 'google_meet', native_id: 'wsa-firs-tmt', status: 'active' },
      {
        meeting_id: second.meetingId,
        platform: 'google_meet',
        native_id: 'wsa-seco-ndm',
        status: 'requested',
      },
    ]);
    // The history first: the status changes so far and the transcript as it stands.
    await socket.waitFor(
      (frames) =>
        segmentTexts(frames, first.meetingId).includes('said before anyone watched') &&
        statuses(frames, first.meetingId).includes('active') &&
        statuses(frames, second.meetingId).includes('requested'),
    );
    expect(socket.frames.indexOf(subscribed)).toBe(0);

    // Live: a mutable segment in the second meeting, then its final copy with the same id.
    await bots.segment(second.meetingId, second.sessionId, {
      id: 's1',
      start: 2,
      text: 'still being said',
      final: false,
    });
    await socket.waitFor((frames) => segmentTexts(frames, second.meetingId).includes('still being said'));
    await bots.segment(second.meetingId, second.sessionId, {
      id: 's1',
      start: 2,
      text: 'still being said, done',
    });
    await socket.waitFor((frames) =>
      segmentTexts(frames, second.meetingId).includes('still being said, done'),
    );
    const copies = dataFrames(socket.frames)
      .filter((frame) => frame.type === 'transcript.mutable' && frame.meeting.id === second.meetingId)
      .flatMap((frame) => frame.payload.segments);
    expect(copies.map((segment: Frame) => [segment.segment_id, segment.completed, segment.final])).toEqual([
      ['s1', false, false],
      ['s1', true, true],
    ]);
    expect(copies[1]).toMatchObject({
      text: 'still being said, done',
      speaker: 'Ann',
      language: 'en',
      start: 2,
      end: 3,
      absolute_start_time: expect.any(String),
      updated_at: expect.any(String),
    });

    // Chat in the first meeting, a status change in the second.
    await bots.chat(first.meetingId, first.sessionId, {
      key: 'm1',
      sender: 'Cleo',
      text: 'hello all',
      seconds: 3,
    });
    const chat = await socket.next((frame) => frame.type === 'chat_message');
    expect(chat).toMatchObject({
      meeting: { id: first.meetingId, platform: 'google_meet', native_id: 'wsa-firs-tmt' },
      sender: 'Cleo',
      text: 'hello all',
      payload: { sender: 'Cleo', text: 'hello all', is_from_bot: false, start: 3 },
    });
    await bots.event(second.meetingId, second.sessionId, 'active');
    const active = await socket.next(
      (frame) =>
        frame.type === 'meeting.status' &&
        frame.meeting.id === second.meetingId &&
        frame.payload.status === 'active',
    );
    expect(active.payload).toMatchObject({ previous_status: expect.any(String), source: 'bot' });

    // Every data frame names its meeting both ways and carries a cursor; cursors of a meeting only grow.
    for (const frame of dataFrames(socket.frames)) {
      expect(frame.meeting).toEqual(
        frame.meeting.id === first.meetingId
          ? { id: first.meetingId, platform: 'google_meet', native_id: 'wsa-firs-tmt' }
          : { id: second.meetingId, platform: 'google_meet', native_id: 'wsa-seco-ndm' },
      );
      expect(frame.cursor).toMatch(CURSOR);
      expect(frame.ts).toEqual(expect.any(String));
    }
    for (const meetingId of [first.meetingId, second.meetingId]) {
      const cursors = dataFrames(socket.frames)
        .filter((frame) => frame.meeting.id === meetingId)
        .map((frame): number[] => frame.cursor.split('-').map(Number));
      for (let index = 1; index < cursors.length; index += 1) {
        const [before, after] = [cursors[index - 1]!, cursors[index]!];
        expect(after.every((part: number, at: number) => part >= before[at]!)).toBe(true);
      }
    }
    expect(transcriptFromFrames(socket.frames, first.meetingId)).toEqual(
      await restTranscript(ann, 'wsa-firs-tmt'),
    );
    expect(transcriptFromFrames(socket.frames, second.meetingId)).toEqual(
      await restTranscript(ann, 'wsa-seco-ndm'),
    );
  });

  it('resumes from the last cursor after a drop, on another API replica, with nothing missed and nothing twice', async () => {
    const { meetingId, sessionId } = await bots.startMeeting(ann, 'wsr-esum-esx');
    await bots.event(meetingId, sessionId, 'active');
    const first = await connect(api, ann);
    first.send({ action: 'subscribe', meetings: [{ platform: 'google_meet', native_id: 'wsr-esum-esx' }] });
    await bots.segment(meetingId, sessionId, { id: 'a', start: 1, text: 'first words' });
    await bots.chat(meetingId, sessionId, { key: 'c1', sender: 'Ann', text: 'chat before', seconds: 1.5 });
    await first.waitFor(
      (frames) =>
        segmentTexts(frames).includes('first words') &&
        frames.some((frame) => frame.type === 'chat_message' && frame.text === 'chat before'),
    );
    const before = dataFrames(first.frames);
    const cursor = before.at(-1)!.cursor as string;
    first.close();
    await first.closed;

    // While nobody listens: more words, a correction of the first ones, a chat message, a status change.
    await bots.segment(meetingId, sessionId, { id: 'b', start: 2, text: 'said while disconnected' });
    await bots.segment(meetingId, sessionId, { id: 'a', start: 1, text: 'first words, corrected' });
    await bots.chat(meetingId, sessionId, {
      key: 'c2',
      sender: 'Ann',
      text: 'chat while away',
      seconds: 2.5,
    });
    await expect
      .poll(async () => (await restTranscript(ann, 'wsr-esum-esx')).map((s: { text: string }) => s.text))
      .toEqual(['first words, corrected', 'said while disconnected']);

    const resumed = await connect(replica, ann);
    resumed.send({
      action: 'subscribe',
      meetings: [{ platform: 'google_meet', native_id: 'wsr-esum-esx', cursor }],
    });
    await resumed.waitFor(
      (frames) =>
        segmentTexts(frames).includes('first words, corrected') &&
        segmentTexts(frames).includes('said while disconnected') &&
        frames.some((frame) => frame.type === 'chat_message'),
    );
    await resumed.roundTrip();
    // Exactly what changed while away: no status history again, no chat twice, no old copy of a segment.
    expect(segmentTexts(resumed.frames).sort()).toEqual([
      'first words, corrected',
      'said while disconnected',
    ]);
    expect(statuses(resumed.frames, meetingId)).toEqual([]);
    expect(
      resumed.frames.filter((frame) => frame.type === 'chat_message').map((frame) => frame.text),
    ).toEqual(['chat while away']);

    // Live updates reach this replica too (announced through Redis, not process memory).
    await bots.segment(meetingId, sessionId, { id: 'c', start: 4, text: 'live on the replica' });
    await resumed.waitFor((frames) => segmentTexts(frames).includes('live on the replica'));
    await bots.event(meetingId, sessionId, 'completed', { reason: 'stopped' });
    await resumed.waitFor((frames) => statuses(frames, meetingId).includes('completed'));
    expect(transcriptFromFrames([...before, ...resumed.frames], meetingId)).toEqual(
      await restTranscript(ann, 'wsr-esum-esx'),
    );
    // The same position, resumed again: nothing at all is sent twice.
    const again = await connect(replica, ann);
    again.send({
      action: 'subscribe',
      meetings: [{ meeting_id: meetingId, cursor: dataFrames(resumed.frames).at(-1)!.cursor }],
    });
    await again.next((frame) => frame.type === 'subscribed');
    await again.roundTrip();
    expect(dataFrames(again.frames)).toEqual([]);
  });

  it("never lets one user follow another's meeting: not found as over REST, and none of its changes", async () => {
    const anns = await bots.startMeeting(ann, 'wst-enan-tsx');
    await bots.event(anns.meetingId, anns.sessionId, 'active');
    await bots.segment(anns.meetingId, anns.sessionId, { id: 'p', start: 1, text: "Ann's private words" });
    const annSocket = await connect(api, ann);
    annSocket.send({ action: 'subscribe', meetings: [{ meeting_id: anns.meetingId }] });
    await annSocket.waitFor((frames) => segmentTexts(frames).includes("Ann's private words"));

    const bobSocket = await connect(api, bob);
    bobSocket.send({
      action: 'subscribe',
      meetings: [{ platform: 'google_meet', native_id: 'wst-enan-tsx' }, { meeting_id: anns.meetingId }],
    });
    const refused = await bobSocket.next((frame) => frame.type === 'error');
    expect(refused).toEqual({
      type: 'error',
      error: 'meeting_not_found',
      details: 'Meeting not found',
      meetings: [{ platform: 'google_meet', native_id: 'wst-enan-tsx' }, { meeting_id: anns.meetingId }],
    });
    // Exactly what a meeting that does not exist gets, as REST answers both with the same 404.
    bobSocket.send({ action: 'subscribe', meetings: [{ meeting_id: 2_000_000_000 }] });
    const missing = await bobSocket.next((frame) => frame.type === 'error', bobSocket.frames.length);
    expect(missing).toEqual({ ...refused, meetings: [{ meeting_id: 2_000_000_000 }] });
    const rest = await api.request('GET', '/transcripts/google_meet/wst-enan-tsx', { key: bob.key });
    expect(rest.body).toEqual({ error: 'Meeting not found' });

    // Bob's own meeting with the same id is his alone.
    const bobs = await bots.startMeeting(bob, 'wst-enan-tsx');
    bobSocket.send({
      action: 'subscribe',
      meetings: [{ platform: 'google_meet', native_id: 'wst-enan-tsx' }],
    });
    const subscribed = await bobSocket.next((frame) => frame.type === 'subscribed');
    expect(subscribed.meetings).toEqual([
      { meeting_id: bobs.meetingId, platform: 'google_meet', native_id: 'wst-enan-tsx', status: 'requested' },
    ]);

    await bots.segment(anns.meetingId, anns.sessionId, { id: 'q', start: 2, text: 'more of Ann' });
    await bots.chat(anns.meetingId, anns.sessionId, {
      key: 'x',
      sender: 'Ann',
      text: 'Ann only',
      seconds: 2,
    });
    await bots.event(anns.meetingId, anns.sessionId, 'completed', { reason: 'stopped' });
    await annSocket.waitFor((frames) => statuses(frames, anns.meetingId).includes('completed'));
    await annSocket.waitFor((frames) => frames.some((frame) => frame.type === 'chat_message'));
    await bobSocket.roundTrip();
    expect(dataFrames(bobSocket.frames).every((frame) => frame.meeting.id === bobs.meetingId)).toBe(true);
    expect(JSON.stringify(bobSocket.frames)).not.toMatch(/Ann's private words|more of Ann|Ann only/);
  });

  it('unsubscribes on request, and by itself once a meeting ended and went quiet', async () => {
    const one = await bots.startMeeting(ann, 'wsu-nsub-one');
    const two = await bots.startMeeting(ann, 'wsu-nsub-two');
    const socket = await connect(api, ann);
    socket.send({
      action: 'subscribe',
      meetings: [{ meeting_id: one.meetingId }, { meeting_id: two.meetingId }],
    });
    await socket.waitFor((frames) => statuses(frames, two.meetingId).length > 0);

    socket.send({
      action: 'unsubscribe',
      meetings: [{ platform: 'google_meet', native_id: 'wsu-nsub-one' }],
    });
    const unsubscribed = await socket.next((frame) => frame.type === 'unsubscribed');
    expect(unsubscribed).toEqual({
      type: 'unsubscribed',
      meetings: [{ meeting_id: one.meetingId, platform: 'google_meet', native_id: 'wsu-nsub-one' }],
    });
    const from = socket.frames.length;
    await bots.segment(one.meetingId, one.sessionId, { id: 'gone', start: 1, text: 'nobody follows this' });
    await bots.segment(two.meetingId, two.sessionId, { id: 'here', start: 1, text: 'still followed' });
    await socket.waitFor((frames) => segmentTexts(frames.slice(from)).includes('still followed'));
    await socket.roundTrip();
    expect(segmentTexts(socket.frames.slice(from))).toEqual(['still followed']);

    socket.send({ action: 'unsubscribe', meetings: [{ meeting_id: one.meetingId }] });
    expect(await socket.next((frame) => frame.type === 'error', from)).toEqual({
      type: 'error',
      error: 'not_subscribed',
      details: 'Not subscribed to this meeting',
      meetings: [{ meeting_id: one.meetingId }],
    });

    // The test API lets an ended meeting go after 1.5 s without changes.
    await bots.event(two.meetingId, two.sessionId, 'completed', { reason: 'meeting_ended' });
    const ended = await socket.next((frame) => frame.type === 'unsubscribed', from);
    expect(ended).toEqual({
      type: 'unsubscribed',
      meetings: [{ meeting_id: two.meetingId, platform: 'google_meet', native_id: 'wsu-nsub-two' }],
      reason: 'meeting_ended',
      status: 'completed',
    });
    expect(socket.frames.indexOf(ended)).toBeGreaterThan(
      socket.frames.findIndex(
        (frame) => frame.type === 'meeting.status' && frame.payload.status === 'completed',
      ),
    );
    // Subscribing again to a finished meeting replays it, then lets it go again.
    socket.send({ action: 'subscribe', meetings: [{ meeting_id: two.meetingId }] });
    const replayFrom = socket.frames.length;
    await socket.next((frame) => frame.type === 'unsubscribed', replayFrom);
    expect(segmentTexts(socket.frames.slice(replayFrom))).toEqual(['still followed']);
  });

  it('sends a long history in frames of at most 100 segments, in order', async () => {
    const { meetingId, sessionId } = await bots.startMeeting(ann, 'wsl-ongh-ist');
    for (let index = 0; index < 230; index += 1) {
      await bots.segment(meetingId, sessionId, { id: `seg-${index}`, start: index, text: `words ${index}` });
    }
    await expect
      .poll(async () => (await restTranscript(ann, 'wsl-ongh-ist')).length, { timeout: 30_000 })
      .toBe(230);
    const socket = await connect(api, ann);
    socket.send({ action: 'subscribe', meetings: [{ meeting_id: meetingId }] });
    await socket.waitFor((frames) => segmentTexts(frames).length === 230);
    const segmentFrames = socket.frames.filter((frame) => frame.type === 'transcript.mutable');
    expect(segmentFrames.map((frame) => frame.payload.segments.length)).toEqual([100, 100, 30]);
    expect(segmentTexts(socket.frames)).toEqual(Array.from({ length: 230 }, (_, index) => `words ${index}`));
  });
});
