/**
 * One simulated bot: everything a real bot says on Redis, through the real bot's own publishing code
 * (bot/outbox.ts, bot/liveness.ts, bot/commands.ts, bot/audio/audio-out.ts), with no browser and no
 * recognizer behind it. It reads its config the way bot/main.ts does (BOT_CONFIG, or the file
 * BOT_CONFIG_FILE names, then its secrets file), connects with the Redis credential of its own the
 * worker issued (three connections, as the real bot: outbox and alive key, audio, commands), reports
 * `joining` → `awaiting_admission` → `active`, then talks as a meeting does: utterances of one speaker
 * at a time, each a segment revised every `revisionMs` while it grows and sent final when it ends,
 * participants joining and speaking, a recording chunk every 5 s when recording is on, 200 ms of
 * live audio five times a second (appended only while someone listens, as the real bot's); and
 * leaves on a `leave` command, on SIGTERM or when its meeting ends, saying so (`completed`) as its
 * last event.
 */
import { Redis } from 'ioredis';
import { RedisAudioOut } from '../../bot/audio/audio-out.js';
import { CommandReader } from '../../bot/commands.js';
import { EndSignal, type Outcome } from '../../bot/end-signal.js';
import { SegmentIds } from '../../bot/engines/segment-ids.js';
import { Liveness } from '../../bot/liveness.js';
import { Outbox } from '../../bot/outbox.js';
import { botAudioStream, botAudioWantedKey } from '../../shared/contract/audio-stream.js';
import {
  BOT_CONFIG_ENV,
  BOT_CONFIG_FILE_ENV,
  type BotConfig,
  parseBotConfig,
  parseBotSecrets,
  withBotSecrets,
} from '../../shared/contract/bot-config.js';
import type { ParticipantEventType } from '../../shared/contract/events.js';
import { botCommandsStream } from '../../shared/contract/streams.js';
import { createLogger } from '../../shared/infra/logger.js';
import { MeetingTalk, seededRandom } from '../support/meeting-text.js';
import type { BotBehaviour } from './host-protocol.js';

/** The real recorder's chunk period (bot/recording/meeting-recorder.ts). */
const RECORDING_CHUNK_MS = 5000;
/** The capture's chunk (shared/contract/audio-stream.ts: 200 ms of 16 kHz s16le mono). */
const AUDIO_CHUNK_MS = 200;
const AUDIO_SILENCE = new Int16Array((16_000 * AUDIO_CHUNK_MS) / 1000);
/** The most people a simulated meeting has (MeetingTalk draws 2–8). */
const MAX_PEOPLE = 6;

/** The bots' publishing code logs through pino; the simulated fleet keeps its own counters instead. */
const SILENT = createLogger('simulated-bot', 'silent');

/** What the host counts across its bots (host-protocol.ts HostStats, less what it adds itself). */
export interface FleetCounters {
  active: number;
  events: number;
  segmentsFinal: number;
  segmentsPartial: number;
  participants: number;
  recordingChunks: number;
  appendFailures: number;
  redisErrors: number;
  lastRedisError: string | null;
  /** A bot's audio publisher, counted while it runs and folded into the totals once it ends. */
  addAudio(audio: RedisAudioOut): void;
  retireAudio(audio: RedisAudioOut): void;
  recordAppendMs(ms: number): void;
}

/** The container as the runtime started it: its environment and the files put into it. */
export interface SimulatedContainer {
  env: Record<string, string>;
  /** Full path → content. */
  files: Map<string, Buffer>;
}

export class SimulatedBot {
  private readonly end = new EndSignal();
  private readonly connections: Redis[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private killed = false;
  private wakeKilled: () => void = () => undefined;
  private readonly killedSignal = new Promise<void>((resolve) => {
    this.wakeKilled = resolve;
  });
  private inCall = false;
  private audio: RedisAudioOut | undefined;
  private readonly logLines: string[] = [];

  constructor(
    private readonly container: SimulatedContainer,
    private readonly behaviour: BotBehaviour,
    private readonly counters: FleetCounters,
  ) {}

  /** The last lines it "printed" (the runtime's logsTail). */
  logTail(): string[] {
    return this.logLines.slice(-20);
  }

  /** SIGTERM: the bot leaves as the real one does on a signal. */
  terminate(): void {
    this.log('asked to stop (SIGTERM)');
    this.end.end({ status: 'completed', reason: 'stopped', detail: 'SIGTERM' });
  }

  /** SIGKILL: gone at once, connections dropped, nothing more said. */
  kill(): void {
    if (this.killed) return;
    this.killed = true;
    this.end.end({ status: 'failed', reason: 'crashed', detail: 'SIGKILL' });
    for (const timer of this.timers) clearInterval(timer);
    for (const redis of this.connections) redis.disconnect();
    this.wakeKilled();
  }

  /** Runs the bot to its end; resolves with its exit code (0 completed, 1 failed, 2 bad config, 137 killed). */
  async run(): Promise<number> {
    let config: BotConfig;
    try {
      config = this.readConfig();
    } catch (error) {
      this.log(`invalid bot config: ${(error as Error).message}`);
      return 2;
    }
    const life = this.live(config).then(
      (outcome) => (outcome.status === 'completed' ? 0 : 1),
      (error: unknown) => {
        this.log(`bot crashed: ${(error as Error).message}`);
        return 1;
      },
    );
    const code = await Promise.race([life, this.killedSignal.then(() => 137)]);
    if (this.inCall) this.counters.active -= 1;
    this.inCall = false;
    for (const timer of this.timers) clearInterval(timer);
    if (this.audio) this.counters.retireAudio(this.audio);
    return code;
  }

  /** The config as bot/main.ts reads it: from BOT_CONFIG, or the file BOT_CONFIG_FILE names; then its secrets file. */
  private readConfig(): BotConfig {
    const { env } = this.container;
    const configPath = env[BOT_CONFIG_FILE_ENV];
    const raw = configPath ? this.fileText(configPath) : env[BOT_CONFIG_ENV];
    const config = parseBotConfig(raw);
    if (!config.secretsPath) return config;
    return withBotSecrets(config, parseBotSecrets(this.fileText(config.secretsPath), config.secretsPath));
  }

  private fileText(path: string): string {
    const content = this.container.files.get(path);
    if (content === undefined) throw new Error(`${path} is missing or unreadable: ENOENT`);
    return content.toString('utf8');
  }

  private connect(url: string): Redis {
    // As bot/main.ts: never give up on a command.
    const redis = new Redis(url, { maxRetriesPerRequest: null });
    redis.on('error', (error: Error) => {
      this.counters.redisErrors += 1;
      this.counters.lastRedisError = error.message;
    });
    this.connections.push(redis);
    return redis;
  }

  private async live(config: BotConfig): Promise<Outcome> {
    const random = seededRandom(config.meetingId * 7919 + 17);
    const talk = new MeetingTalk(random);
    const redis = this.connect(config.redisUrl);
    const commandsRedis = this.connect(config.redisUrl);
    const outbox = new Outbox(redis, config, SILENT);
    const liveness = new Liveness(redis, config, SILENT, () => ({
      lagSeconds: 0,
      lagging: false,
      settling: !this.inCall,
    }));
    liveness.start();
    const reader = new CommandReader(
      commandsRedis,
      botCommandsStream(config.streamPrefix, config.meetingId),
      (command) => {
        this.log(`command received: ${command.type}`);
        if (command.type === 'leave')
          this.end.end({ status: 'completed', reason: 'stopped', detail: 'leave command' });
      },
      SILENT,
    );
    reader.start();
    const event = (step: Parameters<Outbox['event']>[0]) => {
      this.counters.events += 1;
      this.log(`lifecycle ${step.status}`);
      return outbox.event(step);
    };

    await event({ status: 'joining' });
    await this.end.sleep(this.behaviour.lobbyMs * (1 + random()));
    if (!this.end.outcome) await event({ status: 'awaiting_admission' });
    await this.end.sleep(this.behaviour.admissionMs * (1 + random()));
    if (!this.end.outcome) {
      await event({ status: 'active' });
      this.inCall = true;
      this.counters.active += 1;
      if (this.behaviour.meetingSeconds > 0) {
        const ends = setTimeout(
          () => this.end.end({ status: 'completed', reason: 'meeting_ended' }),
          this.behaviour.meetingSeconds * 1000,
        );
        this.timers.push(ends);
      }
      // As bot/main.ts: the audio on the outbox's connection.
      await this.inTheCall(config, outbox, redis, talk, random);
    }
    if (this.killed) return this.end.outcome!;
    const outcome = this.end.outcome ?? { status: 'completed', reason: 'stopped' };
    await reader.stop();
    await event(outcome);
    await outbox.drain();
    this.counters.appendFailures += outbox.failedAppends();
    await liveness.stop();
    await redis.quit().catch(() => redis.disconnect());
    this.log(`bot finished: ${outcome.status} ${outcome.reason}`);
    return outcome;
  }

  /** The call: the talk, the recording and the live audio until the end. */
  private async inTheCall(
    config: BotConfig,
    outbox: Outbox,
    audioRedis: Redis,
    talk: MeetingTalk,
    random: () => number,
  ): Promise<void> {
    const captureStart = Date.now();
    const requestedOrigin = config.transcriptOrigin ? Date.parse(config.transcriptOrigin) : captureStart;
    const origin = Math.min(requestedOrigin, captureStart);
    const seconds = (wall: number) => Math.max(0, Math.round(wall - origin) / 1000);
    const people = talk.participants().slice(0, MAX_PEOPLE);
    let participantsSent = 0;
    const participant = (type: ParticipantEventType, name: string) => {
      participantsSent += 1;
      this.counters.participants += 1;
      const now = Date.now();
      void outbox.participant({ type, name, at: new Date(now).toISOString(), seconds: seconds(now) });
    };
    for (const name of people) participant('participant.joined', name);
    let speaker: string | null = null;

    if (this.behaviour.audio) {
      const audio = new RedisAudioOut(
        audioRedis,
        {
          stream: botAudioStream(config.streamPrefix, config.sessionId),
          wanted: botAudioWantedKey(config.streamPrefix, config.sessionId),
        },
        SILENT,
      );
      this.audio = audio;
      this.counters.addAudio(audio);
      this.timers.push(
        setInterval(() => {
          const capturedAt = Date.now();
          const startWall = capturedAt - AUDIO_CHUNK_MS;
          audio.publish(
            {
              start: seconds(startWall),
              end: seconds(capturedAt),
              startWallMs: startWall,
              capturedAtMs: capturedAt,
              speaker,
            },
            AUDIO_SILENCE,
          );
        }, AUDIO_CHUNK_MS),
      );
    }

    let recordingSeq = 0;
    if (config.recording.enabled) {
      const chunk = recordingChunkData(this.behaviour.recordingChunkBytes);
      this.timers.push(
        setInterval(() => {
          this.counters.recordingChunks += 1;
          void outbox.recordingChunk({
            seq: recordingSeq++,
            data: chunk,
            endSeconds: (Date.now() - captureStart) / 1000,
            startSeconds: seconds(captureStart),
            final: false,
          });
        }, RECORDING_CHUNK_MS),
      );
    }

    const ids = new SegmentIds('sim');
    const language = config.language ?? 'en';
    while (!this.end.outcome) {
      const next: string =
        random() < 0.6 && speaker ? speaker : people[Math.floor(random() * people.length)]!;
      if (next !== speaker) {
        if (speaker) participant('participant.speech_stopped', speaker);
        participant('participant.speech_started', next);
        speaker = next;
      }
      const words = talk.sentence('en').split(' ');
      const durationMs = Math.max(1500, (words.length / this.behaviour.wordsPerSecond) * 1000);
      const startWall = Date.now();
      const segmentId = ids.create();
      for (;;) {
        const remaining = startWall + durationMs - Date.now();
        await this.end.sleep(Math.max(0, Math.min(this.behaviour.revisionMs, remaining)));
        if (this.killed) return;
        const now = Date.now();
        const complete = now >= startWall + durationMs;
        // Ended mid-utterance: what was said so far is flushed as final, as the engines do when closed.
        const final = complete || this.end.outcome !== null;
        const said = Math.max(1, Math.ceil((words.length * (now - startWall)) / durationMs));
        const text = words.slice(0, complete ? words.length : said).join(' ');
        if (final) this.counters.segmentsFinal += 1;
        else this.counters.segmentsPartial += 1;
        const published = Date.now();
        void outbox
          .segment({
            segmentId,
            start: seconds(startWall),
            end: seconds(now),
            text,
            speaker,
            language,
            absoluteStartTime: new Date(startWall).toISOString(),
            // The publish time: the commit latency is measured from it.
            absoluteEndTime: new Date(now).toISOString(),
            final,
          })
          .then(() => this.counters.recordAppendMs(Date.now() - published));
        if (final) break;
      }
      const [low, high] = this.behaviour.pauseMs;
      await this.end.sleep(low + random() * (high - low));
    }
    for (const timer of this.timers) clearInterval(timer);
    if (this.killed) return;
    if (speaker) participant('participant.speech_stopped', speaker);
    if (config.recording.enabled) {
      this.counters.recordingChunks += 1;
      void outbox.recordingChunk({
        seq: recordingSeq++,
        data: '',
        endSeconds: (Date.now() - captureStart) / 1000,
        startSeconds: seconds(captureStart),
        final: true,
      });
    }
    this.log(`left the call after ${participantsSent} participant events`);
  }

  private log(line: string): void {
    this.logLines.push(`${new Date().toISOString()} ${line}`);
    if (this.logLines.length > 40) this.logLines.splice(0, this.logLines.length - 20);
  }
}

const chunkData = new Map<number, string>();

/** Base64 of `bytes` pseudo-random bytes (stands for Ogg Opus pages: nothing downstream decodes them), made once per size. */
function recordingChunkData(bytes: number): string {
  let data = chunkData.get(bytes);
  if (data === undefined) {
    const random = seededRandom(bytes);
    const buffer = Buffer.alloc(bytes);
    for (let index = 0; index < bytes; index += 1) buffer[index] = Math.floor(random() * 256);
    data = buffer.toString('base64');
    chunkData.set(bytes, data);
  }
  return data;
}
