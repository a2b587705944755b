import { describe, expect, it } from 'vitest';
import { SseParser } from '../../../web/src/api/sse.js';

describe('the web app’s event-stream parser', () => {
  it('reads the API’s events with their ids, skips comments, joins data lines', () => {
    const parser = new SseParser();
    const events = parser.push(
      ': keep-alive\n\nid: 1-0-0\nevent: status\ndata: {"status":"requested"}\n\nid: 1-5-0\nevent: segment\ndata: line one\ndata: line two\n\n',
    );
    expect(events).toEqual([
      { event: 'status', data: '{"status":"requested"}', id: '1-0-0' },
      { event: 'segment', data: 'line one\nline two', id: '1-5-0' },
    ]);
  });

  it('completes events split anywhere across chunks, CRLF and CR line ends included', () => {
    const text = 'id: 7\r\nevent: segment\r\ndata: {"a":1}\r\n\r\nevent: end\rdata: {}\r\r';
    for (let cut = 0; cut <= text.length; cut += 1) {
      const parser = new SseParser();
      const events = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(events, `cut at ${cut}`).toEqual([
        { event: 'segment', data: '{"a":1}', id: '7' },
        { event: 'end', data: '{}', id: '7' },
      ]);
    }
  });

  it('keeps one character at a time apart, defaults the type to message, and drops events without data', () => {
    const parser = new SseParser();
    const events = [...'event: ping\n\ndata:x\n\ndata\n\n'].flatMap((c) => parser.push(c));
    expect(events).toEqual([
      { event: 'message', data: 'x', id: undefined },
      { event: 'message', data: '', id: undefined },
    ]);
  });
});
