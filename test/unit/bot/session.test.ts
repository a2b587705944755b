import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { AudioOut } from '../../../bot/audio/audio-out.js';
import { CaptureTimeline } from '../../../bot/audio/capture-timeline.js';
import { EndSignal } from '../../../bot/end-signal.js';
import type { EngineSegment, TranscriptionEngine } from '../../../bot/engines/engine.js';
import type { MeetingPage, MeetingPageHooks } from '../../../bot/meeting-page.js';
import type {
  ChatSink,
  EventSink,
  HealthReport,
  LifecycleStep,
  ParticipantChange,
} from '../../../bot/outbox.js';
import type { Observation, PlatformChat, PlatformDriver, Screen } from '../../../bot/platforms/driver.js';
import { BotSession, type EngineFactory, type Pacing } from '../../../bot/session.js';
import type { VideoMeasure } from '../../../bot/video/measures.js';
import { type BotConfigInput, botConfigSchema } from '../../../shared/contract/bot-config.js';
import type { TranscriptSegmentMessage } from '../../../shared/contract/events.js';
import { createLogger, type Logger } from '../../../shared/infra/logger.js';

const log = createLogger('bot-session-test', 'silent');
const FAST = { prejoinMs: 5, lobbyMs: 5, callMs: 5 };

/** A driver that shows a scripted series of screens, one per look; the last one stays. */
class ScriptedDriver implements PlatformDriver {
  readonly platform = 'google_meet' as const;
  readonly speakingScript = '';
  readonly actions: string[] = [];
  private looks = 0;
  protected pressed = false;
  openError: Error | null = null;
  /** The incoming-video setting, when the test gives the driver one. */
  turnOffIncomingVideo?: (abandoned: AbortSignal) => Promise<boolean>;

  constructor(private readonly script: (look: number, pressed: boolean) => Observation) {}

  async open(url: string): Promise<void> {
    this.actions.push(`open ${url}`);
    if (this.openError) throw this.openError;
  }
  async prepareStep(): Promise<string | null> {
    if (this.pressed) return null;
    this.pressed = true;
    this.actions.push('join');
    return 'pressed "ask to join"';
  }
  async observe(): Promise<Observation> {
    return this.script(this.looks++, this.pressed);
  }
  async answerDialog(): Promise<string | null> {
    this.actions.push('answer');
    return 'answered';
  }
  async ensureMuted(): Promise<void> {}
  async setMicrophone(on: boolean): Promise<boolean> {
    this.actions.push(on ? 'unmute' : 'mute');
    return true;
  }
  async setCamera(on: boolean): Promise<boolean> {
    this.actions.push(on ? 'camera on' : 'camera off');
    return true;
  }
  async leave(): Promise<void> {
    this.actions.push('leave');
  }
}

/**
 * A slow pre-join form: each look at it takes the next of `steps` once `everyMs` have passed since
 * the last one (the same step again after the list ends, or none); "pressed" steps press join.
 */
class SlowFormDriver extends ScriptedDriver {
  private taken = 0;
  private lastAt = 0;
  constructor(
    private readonly steps: (index: number) => string | null,
    private readonly everyMs: number,
  ) {
    super(screens({ kind: 'lobby' }));
  }
  override async prepareStep(): Promise<string | null> {
    if (Date.now() - this.lastAt < this.everyMs) return null;
    const step = this.steps(this.taken);
    if (step === null) return null;
    this.taken += 1;
    this.lastAt = Date.now();
    this.actions.push(step);
    if (step.startsWith('pressed')) this.pressed = true;
    return step;
  }
}

function screens(
  ...list: (Screen | [Screen, number | null])[]
): (look: number, pressed: boolean) => Observation {
  return (look, pressed) => {
    if (!pressed) return { screen: { kind: 'prejoin' }, others: null };
    const entry = list[Math.min(look - 1, list.length - 1)]!;
    return Array.isArray(entry) ? { screen: entry[0], others: entry[1] } : { screen: entry, others: null };
  };
}

class RecordingSink implements EventSink {
  readonly steps: LifecycleStep[] = [];
  readonly segments: Omit<TranscriptSegmentMessage, 'meetingId' | 'sessionId'>[] = [];
  async event(step: LifecycleStep): Promise<void> {
    this.steps.push(step);
  }
  async segment(message: Omit<TranscriptSegmentMessage, 'meetingId' | 'sessionId'>): Promise<void> {
    this.segments.push(message);
  }
  readonly reports: HealthReport[] = [];
  async health(report: HealthReport): Promise<void> {
    this.reports.push(report);
  }
  readonly recordingChunks: Array<Parameters<EventSink['recordingChunk']>[0]> = [];
  async recordingChunk(chunk: Parameters<EventSink['recordingChunk']>[0]): Promise<void> {
    this.recordingChunks.push(chunk);
  }
  async drain(): Promise<void> {}
}

class FakeEngine implements TranscriptionEngine {
  samples = 0;
  flushed = false;
  closed = false;
  emit: ((segment: EngineSegment) => void) | null = null;
  dropped: ((start: number, end: number) => void) | null = null;
  backlog = 0;
  /** A dropped stretch the engine reports once its backlog is worked off (or at its next write). */
  droppedStretch: [number, number] | null = null;
  constructor(private readonly failStart = false) {}
  backlogSeconds(): number {
    return this.backlog;
  }
  settleDroppedAudio(): void {
    if (!this.droppedStretch || this.backlog > 15) return;
    const [start, end] = this.droppedStretch;
    this.droppedStretch = null;
    this.dropped?.(start, end);
  }
  async start(): Promise<void> {
    if (this.failStart) throw new Error('no model');
  }
  write(samples: Int16Array): void {
    this.samples += samples.length;
  }
  reconfigure(): void {}
  async flush(): Promise<void> {
    this.flushed = true;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

function setUp(
  driver: ScriptedDriver,
  config: Partial<BotConfigInput> = {},
  options: {
    failEngine?: boolean;
    onPage?: (hooks: MeetingPageHooks) => void;
    /** Wall time of the one chunk of audio the page delivers. */
    captureWall?: number;
    /** Where participant changes go (none: not reported). */
    participants?: ParticipantChange[];
    audioOut?: AudioOut;
    videoMeasures?: VideoMeasure[];
    pacing?: Partial<Pacing>;
    log?: Logger;
    chatSink?: ChatSink;
  } = {},
) {
  const sink = new RecordingSink();
  const participants = options.participants;
  const engine = new FakeEngine(options.failEngine);
  const end = new EndSignal();
  let pageOpened = false;
  let pageClosed = false;
  let captureStarted = false;
  const timeline = new CaptureTimeline();
  const createEngine: EngineFactory = (_config, _settings, callbacks) => {
    engine.emit = callbacks.onSegment;
    engine.dropped = callbacks.onAudioDropped ?? null;
    return engine;
  };
  const session = new BotSession({
    config: botConfigSchema.parse({
      meetingId: 1,
      sessionId: 's',
      platform: 'google_meet',
      meetingUrl: 'https://meet.google.com/abc-defg-hij',
      botName: 'Bot',
      language: 'en',
      redisUrl: 'redis://127.0.0.1:6379',
      streamPrefix: 'p',
      ...config,
    }),
    outbox: sink,
    ...(participants && {
      participantSink: {
        participant: async (change: ParticipantChange) => {
          participants.push(change);
        },
      },
    }),
    log: options.log ?? log,
    ...(options.chatSink && { chatSink: options.chatSink }),
    end,
    createEngine,
    pacing: { ...FAST, ...options.pacing },
    ...(options.audioOut && { audioOut: options.audioOut }),
    openPage: async (_config, hooks): Promise<MeetingPage> => {
      pageOpened = true;
      options.onPage?.(hooks);
      return {
        driver,
        startCapture: async (deliver) => {
          captureStarted = true;
          timeline.append(3200, options.captureWall ?? Date.parse('2026-01-01T00:00:00.000Z'));
          deliver(new Int16Array(3200));
        },
        timeline,
        silenceOfDelivery: () => 0,
        videoMeasures: options.videoMeasures ?? [],
        videoFramesDecoded: async () => null,
        media: {
          playPcm: async () => ({ startsInMs: 0, durationMs: 0 }),
          playEncoded: async () => ({ startsInMs: 0, durationMs: 0 }),
          remainingMs: async () => 0,
          takenAt: async () => null,
          stop: async () => {},
          showImage: async () => ({ width: 1, height: 1 }),
          hideImage: async () => {},
          cameraTakenAt: async () => null,
        },
        close: async () => {
          pageClosed = true;
        },
      };
    },
  });
  return {
    session,
    sink,
    engine,
    end,
    timeline,
    statuses: () =>
      sink.steps.map((step) => ('reason' in step ? `${step.status}:${step.reason}` : step.status)),
    page: () => ({ opened: pageOpened, closed: pageClosed, captureStarted }),
  };
}

describe('BotSession', () => {
  it('reports active only after consecutive in-call looks, never from the lobby', async () => {
    const seen: string[] = [];
    const driver = new ScriptedDriver((look, pressed) => {
      const observation = screens(
        { kind: 'lobby' },
        { kind: 'lobby' },
        { kind: 'in_call' },
        { kind: 'lobby' },
        { kind: 'in_call' },
        { kind: 'in_call' },
        { kind: 'ended', reason: 'meeting_ended', detail: 'the call ended' },
      )(look, pressed);
      seen.push(observation.screen.kind);
      return observation;
    });
    const { session, statuses, engine, page, sink } = setUp(driver);
    const record = sink.event.bind(sink);
    let looksBeforeActive = -1;
    sink.event = async (step) => {
      if (step.status === 'active') looksBeforeActive = seen.length;
      return record(step);
    };
    const outcome = await session.run();
    expect(outcome).toEqual({ status: 'completed', reason: 'meeting_ended', detail: 'the call ended' });
    expect(statuses()).toEqual(['joining', 'awaiting_admission', 'active']);
    // active came after the second consecutive in_call, not after the one the lobby interrupted
    expect(seen.slice(0, looksBeforeActive)).toEqual([
      'prejoin',
      'lobby',
      'lobby',
      'in_call',
      'lobby',
      'in_call',
      'in_call',
    ]);
    expect(driver.actions).not.toContain('leave');
    expect(engine.flushed && engine.closed).toBe(true);
    expect(page().closed).toBe(true);
  });

  it('is settling in until its video measures are done in the call, but not while it has waited in the lobby a while', async () => {
    const seen: string[] = [];
    let session: BotSession | undefined;
    const driver = new ScriptedDriver((look, pressed) => {
      const observation = screens(
        { kind: 'lobby' },
        { kind: 'lobby' },
        { kind: 'lobby' },
        ...Array.from({ length: 8 }, () => ({ kind: 'in_call' }) as const),
        { kind: 'ended', reason: 'meeting_ended', detail: 'the call ended' },
      )(look, pressed);
      // The third lobby look as if it came 10 s after the bot entered the lobby.
      const at = observation.screen.kind === 'lobby' && look >= 3 ? Date.now() + 10_000 : Date.now();
      seen.push(`${observation.screen.kind}${session?.lagState(at).settling ? ' settling' : ''}`);
      return observation;
    });
    let tries = 0;
    driver.turnOffIncomingVideo = async () => {
      tries += 1;
      return tries === 3; // the setting is reached on the third try
    };
    const setup = setUp(driver, {}, { videoMeasures: ['hide_remote_video', 'incoming_video_off'] });
    session = setup.session;
    expect(session.lagState().settling).toBe(true);
    expect(await session.run()).toMatchObject({ status: 'completed', reason: 'meeting_ended' });
    expect(tries).toBe(3);
    expect(seen).toEqual([
      'prejoin settling',
      'lobby settling', // seen while asking to join: not in the lobby yet
      'lobby settling', // in the lobby, not for long yet
      'lobby', // waited 10 s: settled until admitted
      'in_call settling', // the two looks that make sure of the admission (still in the lobby)
      'in_call settling',
      'in_call settling', // in the call: the setting tried at each look, reached at the third
      'in_call settling',
      'in_call settling',
      'in_call',
      'in_call',
      'in_call',
      'ended',
    ]);
  });

  it.each([
    ['the meeting ends', 'meeting_ended'],
    ['the bot is told to leave', 'stopped'],
  ] as const)(
    'does not wait on a video setting stuck on the page when %s: the setting is abandoned',
    async (_when, reason) => {
      const told = reason === 'stopped';
      const driver = new ScriptedDriver(
        screens(
          { kind: 'lobby' },
          ...Array.from({ length: told ? 1 : 6 }, () => ({ kind: 'in_call' }) as const),
          told ? { kind: 'in_call' } : { kind: 'ended', reason: 'meeting_ended', detail: 'the call ended' },
        ),
      );
      let abandoned: AbortSignal | null = null;
      const setup = setUp(driver, {}, { videoMeasures: ['incoming_video_off'] });
      // A step waiting on a page that changed under it: it never settles by itself.
      driver.turnOffIncomingVideo = (signal) => {
        abandoned = signal;
        if (told) setup.end.end({ status: 'completed', reason: 'stopped' });
        return new Promise(() => {});
      };
      expect(await setup.session.run()).toMatchObject({ status: 'completed', reason });
      expect(abandoned).not.toBeNull();
      expect(abandoned!.aborted).toBe(true);
      expect(driver.actions.includes('leave')).toBe(told);
    },
    10_000,
  );

  it.each([
    ['an image', 'camera on'],
    ['a chat message', 'chat sent'],
  ] as const)(
    'a video setting stuck on the page gives way to %s asked for meanwhile, and is tried again after',
    async (_what, action) => {
      const driver = new (class extends ScriptedDriver {
        readonly chat: PlatformChat = {
          open: async () => true,
          read: async () => [],
          send: async () => {
            this.actions.push('chat sent');
          },
        };
      })(screens({ kind: 'lobby' }, { kind: 'in_call' }));
      const setup = setUp(
        driver,
        {},
        { videoMeasures: ['incoming_video_off'], chatSink: { chat: async () => {} } },
      );
      const issuedAt = new Date().toISOString();
      let tries = 0;
      driver.turnOffIncomingVideo = (signal) => {
        tries += 1;
        driver.actions.push(`video try ${tries}`);
        if (tries > 1) {
          setup.end.end({ status: 'completed', reason: 'stopped' });
          return Promise.resolve(true);
        }
        // The first try: stuck on the page until it is stopped, while the request comes in.
        setTimeout(() => {
          if (action === 'camera on')
            setup.session.handleCommand({ type: 'screen.show', image: { base64: 'AQ==' }, issuedAt });
          else
            setup.session.handleCommand({
              type: 'chat.send',
              id: '00000000-0000-4000-8000-000000000001',
              text: 'hello',
              issuedAt,
            });
        }, 20);
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve(false)));
      };
      expect(await setup.session.run()).toMatchObject({ status: 'completed', reason: 'stopped' });
      const seen = driver.actions.filter((a) => a.startsWith('video try') || a === action);
      expect(seen).toEqual(['video try 1', action, 'video try 2']);
    },
    10_000,
  );

  it("never looks at the call or works the chat while a toggle is being pressed (the press's mouse down and up stay together)", async () => {
    const overlaps: string[] = [];
    let pressing = false;
    const driver = new (class extends ScriptedDriver {
      readonly chat: PlatformChat = {
        open: async () => true,
        read: async () => {
          if (pressing) overlaps.push('chat read');
          return [];
        },
        send: async () => {
          if (pressing) overlaps.push('chat send');
        },
      };
      override async observe(): Promise<Observation> {
        if (pressing) overlaps.push('look');
        return super.observe();
      }
      override async setCamera(on: boolean): Promise<boolean> {
        pressing = true;
        await new Promise((resolve) => setTimeout(resolve, 40));
        pressing = false;
        return super.setCamera(on);
      }
    })(screens({ kind: 'lobby' }, { kind: 'in_call' }));
    const setup = setUp(driver, {}, { chatSink: { chat: async () => {} } });
    const issuedAt = new Date().toISOString();
    setTimeout(() => {
      setup.session.handleCommand({ type: 'screen.show', image: { base64: 'AQ==' }, issuedAt });
      setup.session.handleCommand({
        type: 'chat.send',
        id: '00000000-0000-4000-8000-000000000002',
        text: 'hello',
        issuedAt,
      });
    }, 30);
    setTimeout(() => setup.end.end({ status: 'completed', reason: 'stopped' }), 300);
    expect(await setup.session.run()).toMatchObject({ status: 'completed', reason: 'stopped' });
    expect(driver.actions.filter((a) => a.startsWith('camera'))).toEqual(['camera on']);
    expect(overlaps).toEqual([]);
  }, 10_000);

  it('answers a post-admission dialog and starts capturing at the first sign of admission', async () => {
    const driver = new ScriptedDriver(
      screens(
        { kind: 'lobby' },
        { kind: 'dialog', detail: 'this video call is being recorded' },
        { kind: 'in_call' },
        { kind: 'in_call' },
        { kind: 'ended', reason: 'removed', detail: 'removed' },
      ),
    );
    const { session, statuses, engine, page } = setUp(driver);
    expect(await session.run()).toMatchObject({ status: 'completed', reason: 'removed' });
    expect(driver.actions).toContain('answer');
    expect(statuses()).toEqual(['joining', 'awaiting_admission', 'active']);
    expect(page().captureStarted).toBe(true);
    expect(engine.samples).toBe(3200);
  });

  it('gives up at the admission timeout and leaves the lobby', async () => {
    const driver = new ScriptedDriver(screens({ kind: 'lobby' }));
    const { session, statuses } = setUp(driver, { automaticLeave: { admissionTimeoutSeconds: 0.3 } });
    expect(await session.run()).toMatchObject({ status: 'failed', reason: 'admission_timeout' });
    expect(statuses()).toEqual(['joining', 'awaiting_admission']);
    expect(driver.actions.at(-1)).toBe('leave');
  });

  it('leaves the lobby on a leave command', async () => {
    const driver = new ScriptedDriver(screens({ kind: 'lobby' }));
    const { session, end, statuses } = setUp(driver);
    const running = session.run();
    await expect.poll(() => statuses()).toEqual(['joining', 'awaiting_admission']);
    session.handleCommand({ type: 'leave', reason: 'stopped', issuedAt: new Date().toISOString() });
    expect(await running).toMatchObject({ status: 'completed', reason: 'stopped' });
    expect(end.outcome).toMatchObject({ reason: 'stopped' });
    expect(driver.actions.at(-1)).toBe('leave');
  });

  it('leaves on its own once everyone else has gone, with that reason', async () => {
    const driver = new ScriptedDriver((look, pressed) => {
      if (!pressed) return { screen: { kind: 'prejoin' }, others: null };
      return { screen: { kind: 'in_call' }, others: look < 5 ? 2 : 0 };
    });
    const { session, statuses, engine, page } = setUp(driver, { automaticLeave: { aloneSeconds: 0.2 } });
    expect(await session.run()).toEqual({ status: 'completed', reason: 'left_alone' });
    expect(statuses()).toEqual(['joining', 'awaiting_admission', 'active']);
    expect(driver.actions.at(-1)).toBe('leave');
    expect(engine.flushed && engine.closed && page().closed).toBe(true);
  });

  it('reports who joined and left from its looks, and who spoke, ending the speech still going on when it leaves', async () => {
    const startedAt = Date.now();
    let inCallSince = 0;
    const driver = new ScriptedDriver((_look, pressed) => {
      if (!pressed) return { screen: { kind: 'prejoin' }, others: null };
      inCallSince ||= Date.now();
      const inCall = Date.now() - inCallSince;
      if (inCall > 5000)
        return { screen: { kind: 'ended', reason: 'meeting_ended', detail: 'ended' }, others: null };
      const names = inCall < 300 ? ['Ann', 'Bob (Guest)', 'Bot'] : ['Ann', 'Bot'];
      return { screen: { kind: 'in_call' }, others: names.length - 1, people: { names, complete: true } };
    });
    const published: ParticipantChange[] = [];
    let hooks: MeetingPageHooks | undefined;
    const { session } = setUp(
      driver,
      {},
      { participants: published, captureWall: startedAt, onPage: (given) => (hooks = given) },
    );
    const running = session.run();
    await expect.poll(() => published.length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    // Ann's indicator comes on (capture-clock seconds) and stays on until the bot leaves.
    hooks!.onSpeaking({
      signal: 'audio_level',
      name: 'Ann',
      speaking: true,
      at: (Date.now() - startedAt) / 1000,
    });
    expect(await running).toMatchObject({ status: 'completed', reason: 'meeting_ended' });
    expect(published.map((change) => [change.type, change.name])).toEqual([
      ['participant.joined', 'Ann'],
      ['participant.joined', 'Bob'],
      ['participant.speech_started', 'Ann'],
      ['participant.left', 'Bob'],
      ['participant.speech_stopped', 'Ann'],
    ]);
    const [joined, , started, left, stopped] = published;
    expect(Date.parse(left!.at) - Date.parse(joined!.at)).toBeGreaterThanOrEqual(250);
    expect(left!.seconds).toBeGreaterThan(joined!.seconds);
    expect(Date.parse(stopped!.at)).toBeGreaterThan(Date.parse(started!.at));
  }, 15_000);

  it('fails with engine_error before opening any page when the engine cannot start', async () => {
    const driver = new ScriptedDriver(screens({ kind: 'lobby' }));
    const { session, statuses, page } = setUp(driver, {}, { failEngine: true });
    expect(await session.run()).toEqual({ status: 'failed', reason: 'engine_error', detail: 'no model' });
    expect(statuses()).toEqual([]);
    expect(page().opened).toBe(false);
  });

  it('fails with meeting_unreachable when the meeting page cannot be loaded, and closes the page', async () => {
    const driver = new ScriptedDriver(screens({ kind: 'lobby' }));
    driver.openError = new Error(
      'page.goto: net::ERR_NAME_NOT_RESOLVED at https://meet.google.com/abc-defg-hij\nCall log: ...',
    );
    const { session, statuses, page } = setUp(driver);
    expect(await session.run()).toEqual({
      status: 'failed',
      reason: 'meeting_unreachable',
      detail: 'the meeting page could not be loaded (ERR_NAME_NOT_RESOLVED)',
    });
    expect(statuses()).toEqual([]);
    expect(page().closed).toBe(true);
  });

  it('still treats any other error while opening the page as a crash', async () => {
    const driver = new ScriptedDriver(screens({ kind: 'lobby' }));
    driver.openError = new TypeError('cannot read properties of undefined');
    const { session } = setUp(driver);
    await expect(session.run()).rejects.toThrow('cannot read properties of undefined');
  });

  describe('a refusal seen before asking to join', () => {
    const refused: Screen = { kind: 'failed', reason: 'blocked_by_platform', detail: '' };

    it('is the link where the platform words a refused link like a refused bot (Teams)', async () => {
      const driver = Object.assign(new ScriptedDriver(() => ({ screen: refused, others: null })), {
        refusesBadLinksAsBlocked: true,
      });
      const { session } = setUp(driver);
      expect(await session.run()).toMatchObject({ status: 'failed', reason: 'meeting_not_found' });
      expect(driver.actions).not.toContain('join');
    });

    it('stays blocked_by_platform after the bot asked to join, or where the platform tells them apart', async () => {
      const teams = Object.assign(new ScriptedDriver(screens(refused)), { refusesBadLinksAsBlocked: true });
      expect(await setUp(teams).session.run()).toMatchObject({ reason: 'blocked_by_platform' });
      expect(teams.actions).toContain('join');
      const meet = new ScriptedDriver(() => ({ screen: refused, others: null }));
      expect(await setUp(meet).session.run()).toMatchObject({ reason: 'blocked_by_platform' });
    });
  });

  it('ends with what the page reports as fatal (a sign-in redirect)', async () => {
    let hooks: MeetingPageHooks | null = null;
    const driver = new ScriptedDriver((look) => {
      if (look === 2) {
        hooks?.onFatal({ status: 'failed', reason: 'sign_in_required', detail: 'accounts.google.com' });
      }
      return { screen: { kind: 'loading' }, others: null };
    });
    const { session, statuses } = setUp(driver, {}, { onPage: (given) => (hooks = given) });
    expect(await session.run()).toMatchObject({ status: 'failed', reason: 'sign_in_required' });
    expect(statuses()).toEqual(['joining']);
  });

  it('hands each captured chunk to the audio out: its transcript time, wall times and the speaker so far', async () => {
    const published: Array<{ chunk: Parameters<AudioOut['publish']>[0]; samples: number }> = [];
    const driver = new ScriptedDriver(screens({ kind: 'in_call' }));
    const { session, sink, end } = setUp(
      driver,
      {},
      {
        captureWall: Date.parse('2026-01-01T00:00:05.000Z'),
        onPage: (hooks) =>
          hooks.onSpeaking({ signal: 'audio_level', name: 'Alice (Guest)', speaking: true, at: 0 }),
        audioOut: { publish: (chunk, samples) => published.push({ chunk, samples: samples.length }) },
      },
    );
    const running = session.run();
    await expect.poll(() => sink.steps.length).toBe(3);
    end.end({ status: 'completed', reason: 'stopped' });
    await running;
    expect(published).toEqual([
      {
        chunk: {
          start: 0,
          end: 0.2,
          startWallMs: Date.parse('2026-01-01T00:00:05.000Z'),
          capturedAtMs: expect.any(Number),
          speaker: 'Alice',
        },
        samples: 3200,
      },
    ]);
  });

  it('publishes segments with the speaker the page showed and absolute times from the capture start', async () => {
    let hooks: MeetingPageHooks | null = null;
    const driver = new ScriptedDriver(screens({ kind: 'in_call' }));
    const { session, engine, sink, end } = setUp(
      driver,
      { language: 'en' },
      { onPage: (given) => (hooks = given) },
    );
    const running = session.run();
    await expect.poll(() => sink.steps.length).toBe(3);
    hooks!.onSpeaking({ signal: 'audio_level', name: 'Alice (Guest)', speaking: true, at: 1.0 });
    hooks!.onSpeaking({ signal: 'audio_level', name: 'Alice (Guest)', speaking: false, at: 3.0 });
    engine.emit!({ id: 'a', start: 1.2, end: 2.8, text: 'hello there', language: null, final: true });
    engine.emit!({ id: 'b', start: 10, end: 11, text: 'who said this', language: 'en', final: true });
    session.handleCommand({ type: 'reconfigure', language: 'de', issuedAt: new Date().toISOString() });
    engine.emit!({ id: 'c', start: 12, end: 13, text: 'danach', language: null, final: true });
    end.end({ status: 'completed', reason: 'stopped' });
    await running;
    expect(sink.segments).toEqual([
      expect.objectContaining({
        segmentId: 'a',
        speaker: 'Alice',
        language: 'en',
        absoluteStartTime: '2026-01-01T00:00:01.200Z',
        absoluteEndTime: '2026-01-01T00:00:02.800Z',
      }),
      expect.objectContaining({ segmentId: 'b', speaker: null }),
      expect.objectContaining({ segmentId: 'c', language: 'de' }),
    ]);
  });
  it('says when the transcription falls behind, when it catches up, and what audio the engine dropped', async () => {
    const driver = new ScriptedDriver(screens({ kind: 'in_call' }));
    const { session, engine, sink, end } = setUp(driver, {}, { captureWall: Date.now() });
    const running = session.run();
    await expect.poll(() => sink.steps.length).toBe(3);
    engine.backlog = 25;
    await expect.poll(() => sink.reports.map((report) => report.kind)).toEqual(['lagging']);
    expect(session.lagState()).toMatchObject({ lagging: true });
    engine.dropped!(0, 0.2);
    engine.backlog = 0;
    await expect
      .poll(() => sink.reports.map((report) => report.kind))
      .toEqual(['lagging', 'audio_dropped', 'caught_up']);
    expect(session.lagState()).toMatchObject({ lagging: false });
    end.end({ status: 'completed', reason: 'stopped' });
    await running;
    expect(sink.reports[0]!.lagSeconds).toBeGreaterThanOrEqual(25);
    const dropped = sink.reports[1]!;
    expect(Date.parse(dropped.droppedTo!) - Date.parse(dropped.droppedFrom!)).toBe(200);
  });
  it('reports the dropped audio before catching up, even when the backlog is worked off before the next audio arrives', async () => {
    const driver = new ScriptedDriver(screens({ kind: 'in_call' }));
    const { session, engine, sink, end } = setUp(driver, {}, { captureWall: Date.now() });
    const running = session.run();
    await expect.poll(() => sink.steps.length).toBe(3);
    engine.backlog = 30;
    engine.droppedStretch = [0, 0.5];
    await expect.poll(() => sink.reports.map((report) => report.kind)).toEqual(['lagging']);
    // The recognizer works its whole backlog off between two chunks of audio: no write ends the stretch.
    engine.backlog = 0;
    await expect
      .poll(() => sink.reports.map((report) => report.kind))
      .toEqual(['lagging', 'audio_dropped', 'caught_up']);
    end.end({ status: 'completed', reason: 'stopped' });
    await running;
  });
  it('says what the capture lost in a stretch still going on when the meeting ends', async () => {
    const driver = new ScriptedDriver(screens({ kind: 'in_call' }));
    const heardFrom = Date.now();
    const { session, sink, end, timeline } = setUp(driver, {}, { captureWall: heardFrom });
    const running = session.run();
    await expect.poll(() => sink.steps.length).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The capture's clock skips 4.8 s: its next chunk is heard 5 s after the first (0.2 s long).
    timeline.append(3200, heardFrom + 5000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sink.reports).toEqual([]);
    end.end({ status: 'completed', reason: 'stopped' });
    await running;
    expect(sink.reports).toHaveLength(1);
    const report = sink.reports[0]!;
    expect(report).toMatchObject({ kind: 'audio_dropped', droppedBy: 'capture', droppedSeconds: 4.8 });
    expect(Date.parse(report.droppedTo!)).toBe(heardFrom + 5200);
    expect(Date.parse(report.droppedFrom!)).toBeLessThanOrEqual(heardFrom + 5000);
  });
  describe('the pre-join limit', () => {
    const FORM = ['entered the name', 'turned the microphone off', 'turned the camera off'];
    const pacing = { prejoinStuckMs: 400, prejoinLimitMs: 5000 };

    it('gives a slow form that keeps moving its time, each new step counting from itself', async () => {
      // Four steps 250 ms apart: 750 ms in all, longer than the 400 ms a form may stand still.
      const driver = new SlowFormDriver((i) => [...FORM, 'pressed "Ask to join"'][i] ?? null, 250);
      const { session, statuses, end } = setUp(driver, {}, { pacing });
      const running = session.run();
      await expect.poll(() => statuses()).toEqual(['joining', 'awaiting_admission']);
      expect(driver.actions.filter((action) => !action.startsWith('open'))).toEqual([
        ...FORM,
        'pressed "Ask to join"',
      ]);
      end.end({ status: 'completed', reason: 'stopped' });
      await running;
    });

    it('fails as blocked once the form stands still, a join press the page ignores again and again being no move', async () => {
      const driver = new SlowFormDriver((i) => FORM[i] ?? 'pressed "Ask to join"', 50);
      // The page never shows the lobby: the press did nothing.
      driver.observe = async () => ({ screen: { kind: 'prejoin' }, others: null });
      const startedAt = Date.now();
      const { session } = setUp(driver, {}, { pacing });
      expect(await session.run()).toEqual({
        status: 'failed',
        reason: 'blocked',
        detail: 'the join form never led to a join request',
      });
      // Presses at least 50 ms apart within the 400 ms after the first: the repeats did not extend it.
      const presses = driver.actions.filter((action) => action.startsWith('pressed')).length;
      expect(presses).toBeGreaterThan(2);
      expect(presses).toBeLessThanOrEqual(9);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(400 + 3 * 50);
    });

    it('says in its log why it gave up: each kind of interruption once, and what the page showed last', async () => {
      const driver = new SlowFormDriver((i) => FORM[i] ?? null, 50);
      let looks = 0;
      driver.observe = async () => {
        looks += 1;
        if (looks % 2 === 0) throw new Error('page.evaluate: Execution context was destroyed\nCall log: ...');
        return { screen: { kind: 'prejoin' }, others: null };
      };
      const lines: { level: number; msg: string; [field: string]: unknown }[] = [];
      const spy = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
      const { session } = setUp(driver, {}, { pacing, log: spy });
      expect(await session.run()).toMatchObject({ status: 'failed', reason: 'blocked' });
      expect(looks).toBeGreaterThan(4);
      expect(lines.filter((line) => line.msg === 'pre-join step interrupted')).toHaveLength(1);
      expect(lines.find((line) => line.msg === 'gave up on the pre-join form')).toMatchObject({
        limit: 'without a new step',
        lastScreen: 'prejoin',
        steps: FORM,
        pressedJoin: false,
      });
    });

    it('fails as blocked at its overall limit, however much the form keeps moving', async () => {
      const driver = new SlowFormDriver((i) => `dismissed interstitial ${i}`, 50);
      const startedAt = Date.now();
      const { session } = setUp(driver, {}, { pacing: { prejoinStuckMs: 400, prejoinLimitMs: 1000 } });
      expect(await session.run()).toMatchObject({ status: 'failed', reason: 'blocked' });
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
      expect(driver.actions.length).toBeGreaterThan(5);
    });
  });
});
