import { describe, expect, it } from 'vitest';
import { CaptureTimeline } from '../../../bot/audio/capture-timeline.js';
import type { EventSink } from '../../../bot/outbox.js';
import { TranscriptPublisher } from '../../../bot/session/transcript-publisher.js';
import { SpeakerTimeline } from '../../../bot/speakers/timeline.js';
import { createLogger } from '../../../shared/infra/logger.js';

const log = createLogger('publisher-test', 'silent');

function recordingSink() {
  const segments: Array<Parameters<EventSink['segment']>[0]> = [];
  const sink: EventSink = {
    event: async () => undefined,
    segment: async (segment) => {
      segments.push(segment);
    },
    health: async () => undefined,
    recordingChunk: async () => undefined,
    drain: async () => undefined,
  };
  return { sink, segments };
}

/** Ten seconds of audio in 200 ms chunks, heard `stepMs` apart from `start`. */
function heardFrom(start: number, stepMs = 200): CaptureTimeline {
  const timeline = new CaptureTimeline();
  for (let index = 0; index < 50; index++) timeline.append(3200, start + index * stepMs);
  return timeline;
}

const segment = { id: 's-1', start: 2, end: 4.5, text: 'hello', language: 'en', final: true };

describe('TranscriptPublisher', () => {
  it('counts start and end from the bot’s own capture, with absolute times from its timeline', () => {
    const { sink, segments } = recordingSink();
    const timeline = heardFrom(Date.parse('2026-11-23T10:00:00.000Z'));
    new TranscriptPublisher(sink, new SpeakerTimeline(), timeline, null, log).publish(segment);
    expect(segments[0]).toMatchObject({
      start: 2,
      end: 4.5,
      absoluteStartTime: '2026-11-23T10:00:02.000Z',
      absoluteEndTime: '2026-11-23T10:00:04.500Z',
    });
  });

  it('takes times from where the audio was heard, not from a sample count, when the audio clock lost frames', () => {
    const { sink, segments } = recordingSink();
    // Every 200 ms of audio spans 250 ms of wall time: the chunk
    // holding 4.4–4.6 s was heard 5.5 s after the first one, so 4.5 s maps to 5.6 s.
    const timeline = heardFrom(Date.parse('2026-11-23T10:00:00.000Z'), 250);
    new TranscriptPublisher(sink, new SpeakerTimeline(), timeline, null, log).publish(segment);
    expect(segments[0]).toMatchObject({
      start: 2.5,
      end: 5.6,
      absoluteStartTime: '2026-11-23T10:00:02.500Z',
      absoluteEndTime: '2026-11-23T10:00:05.600Z',
    });
  });

  it('a relaunched bot carries on the meeting’s time line from the transcript origin', () => {
    const { sink, segments } = recordingSink();
    const origin = Date.parse('2026-11-23T10:00:00.000Z');
    const timeline = heardFrom(origin + 95_000); // this bot started hearing 95 s into the transcript
    new TranscriptPublisher(sink, new SpeakerTimeline(), timeline, null, log, origin).publish(segment);
    expect(segments[0]).toMatchObject({
      start: 97,
      end: 99.5,
      absoluteStartTime: '2026-11-23T10:01:37.000Z',
      absoluteEndTime: '2026-11-23T10:01:39.500Z',
    });
  });

  it('says where on the transcript’s time line its capture (the recording’s time zero) began', () => {
    const origin = Date.parse('2026-11-23T10:00:00.000Z');
    const { sink } = recordingSink();
    const relaunched = new TranscriptPublisher(
      sink,
      new SpeakerTimeline(),
      heardFrom(origin + 95_000),
      null,
      log,
      origin,
    );
    expect(relaunched.captureStartSeconds()).toBe(95);
    const first = new TranscriptPublisher(sink, new SpeakerTimeline(), heardFrom(origin), null, log);
    expect(first.captureStartSeconds()).toBe(0);
    expect(
      new TranscriptPublisher(
        sink,
        new SpeakerTimeline(),
        new CaptureTimeline(),
        null,
        log,
      ).captureStartSeconds(),
    ).toBe(0);
  });
});
