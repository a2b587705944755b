import { describe, expect, it } from 'vitest';
import { type Api, ApiError } from '../../../web/src/api/client.js';
import { followMeeting } from '../../../web/src/api/live-stream.js';

/** An answer whose body arrives in the given chunks, then ends (as a connection that closes). */
function streamOf(chunks: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
}

/** A fake API answering each stream request in turn, recording the headers it was sent. */
function fakeApi(answers: (() => Response)[]): { api: Api; sent: Headers[] } {
  const sent: Headers[] = [];
  const api: Api = {
    async request() {
      throw new Error('not used');
    },
    async fetch(_path, init) {
      sent.push(new Headers(init?.headers));
      const next = answers.shift();
      if (!next) throw new Error('no more answers');
      return next();
    },
  };
  return { api, sent };
}

const segment = (id: string) => JSON.stringify({ segment_id: id, text: id });

describe('following a meeting’s live stream', () => {
  it('resumes a dropped connection from the last event it saw, and stops at end', async () => {
    const { api, sent } = fakeApi([
      () => streamOf([`id: 1-1-0\nevent: segment\ndata: ${segment('a')}\n\n`, `id: 1-2-0\nevent: seg`]),
      () =>
        streamOf([
          `id: 1-2-0\nevent: segment\ndata: ${segment('b')}\n\nid: 2-2-0\nevent: status\ndata: {"status":"completed"}\n\n`,
          'event: end\ndata: {}\n\n',
        ]),
    ]);
    const seen: string[] = [];
    const resumed: boolean[] = [];
    await followMeeting(
      api,
      'google_meet/abc-defg-hij',
      {
        segment: (s) => seen.push(`segment ${s.segment_id}`),
        status: (s) => seen.push(`status ${s.status}`),
        chat: () => seen.push('chat'),
        end: () => seen.push('end'),
        connected: (again) => resumed.push(again),
      },
      new AbortController().signal,
    );
    expect(seen).toEqual(['segment a', 'segment b', 'status completed', 'end']);
    expect(resumed).toEqual([false, true]);
    expect(sent.map((headers) => headers.get('Last-Event-ID'))).toEqual([null, '1-1-0']);
    expect(sent[0]!.get('Accept')).toBe('text/event-stream');
  });

  it('gives up on 404 and says so, without trying again', async () => {
    const { api, sent } = fakeApi([
      () => {
        throw new ApiError(404, 'Meeting not found');
      },
    ]);
    const problems: [string, number | undefined][] = [];
    await followMeeting(
      api,
      'teams/123',
      {
        segment: () => {},
        status: () => {},
        chat: () => {},
        end: () => {},
        problem: (error, retryInMs) => problems.push([error.message, retryInMs]),
      },
      new AbortController().signal,
    );
    expect(problems).toEqual([['Meeting not found', undefined]]);
    expect(sent).toHaveLength(1);
  });
});
