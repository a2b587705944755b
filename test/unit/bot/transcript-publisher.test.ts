import { describe, expect, it } from 'vitest';
import type { EventSink } from '../../../bot/outbox.js';
import { SpeakerTimeline } from '../../../bot/speakers.js';
import { TranscriptPublisher } from '../../../bot/transcript-publisher.js';
import { createLogger } from '../../../shared/infra/logger.js';

const log = createLogger('publisher-test', 'silent');

function recordingSink() {
  const segments: Array<Parameters<EventSink['segment']>[0]> = [];
  const sink: EventSink = {
    event: async () => undefined,
    segment: async (segment) => {
      segments.push(segment);
    },
    drain: async () => undefined,
  };
  return { sink, segments };
}

const segment = { id: 's-1', start: 2, end: 4.5, text: 'hello', language: 'en', final: true };

describe('TranscriptPublisher', () => {
  it('counts start and end from the bot’s own capture, with absolute times from its first sample', () => {
    const { sink, segments } = recordingSink();
    const captureStart = Date.parse('2026-11-23T10:00:00.000Z');
    new TranscriptPublisher(sink, new SpeakerTimeline(), () => captureStart, null, log).publish(segment);
    expect(segments[0]).toMatchObject({
      start: 2,
      end: 4.5,
      absoluteStartTime: '2026-11-23T10:00:02.000Z',
      absoluteEndTime: '2026-11-23T10:00:04.500Z',
    });
  });

  it('a relaunched bot carries on the meeting’s time line from the transcript origin', () => {
    const { sink, segments } = recordingSink();
    const origin = Date.parse('2026-11-23T10:00:00.000Z');
    const captureStart = origin + 95_000; // this bot started hearing 95 s into the transcript
    new TranscriptPublisher(sink, new SpeakerTimeline(), () => captureStart, null, log, origin).publish(
      segment,
    );
    expect(segments[0]).toMatchObject({
      start: 97,
      end: 99.5,
      absoluteStartTime: '2026-11-23T10:01:37.000Z',
      absoluteEndTime: '2026-11-23T10:01:39.500Z',
    });
  });
});
