import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type WebSocket, WebSocketServer } from 'ws';

const execFileAsync = promisify(execFile);
const RATE = 16_000;
const FRAME = 320; // 20 ms
/** RMS of a voiced frame, on the float scale (about -40 dBFS). */
const VOICED_RMS = 0.01;
/** Silence that ends an utterance; shorter gaps are pauses inside it. */
const END_GAP_SECONDS = 0.8;
/** How often the server sends its segment list, in seconds of audio received. */
const UPDATE_EVERY_SECONDS = 0.5;

/**
 * A WhisperLive-compatible server for tests. It finds utterances by frame energy in the Float32
 * audio it receives and transcribes each completed one with pocketsphinx, so its answers come from
 * the audio: a client sending the wrong sample format or rate gets nonsense, or nothing.
 */
export interface ReceivedSession {
  config: Record<string, unknown>;
  samples: number;
  endOfAudio: boolean;
  closed: boolean;
}

export interface WhisperLiveServerOptions {
  /** Instead of SERVER_READY, answer with this status (WAIT: server full; ERROR: refused). */
  refuse?: 'WAIT' | 'ERROR';
  /** Hang up (DISCONNECT, as servers capping connection time do) after this much audio on a connection. */
  disconnectAfterSeconds?: number;
}

export interface WhisperLiveTestServer {
  url: string;
  sessions: ReceivedSession[];
  close(): Promise<void>;
}

interface Utterance {
  start: number;
  end: number;
  completed: boolean;
  text?: Promise<string>;
}

export async function startWhisperLiveServer(
  options: WhisperLiveServerOptions = {},
): Promise<WhisperLiveTestServer> {
  const sessions: ReceivedSession[] = [];
  const workDir = await mkdtemp(join(tmpdir(), 'whisperlive-server-'));
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  let files = 0;

  server.on('connection', (socket) => {
    let session: ReceivedSession | null = null;
    let uid = '';
    const audio: number[] = [];
    let voicedFrames: boolean[] = [];
    let sentUpTo = 0;
    let languageSent = false;
    let work = Promise.resolve();
    const utterances: Utterance[] = [];

    const recognize = async (from: number, to: number): Promise<string> => {
      const path = join(workDir, `utterance-${files++}.s16le`);
      const pcm = Buffer.alloc((to - from) * 2);
      for (let i = from; i < to; i++)
        pcm.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(audio[i]! * 32768))), (i - from) * 2);
      await writeFile(path, pcm);
      try {
        const { stdout } = await execFileAsync('pocketsphinx_continuous', [
          '-infile',
          path,
          '-pl_window',
          '10',
          '-maxhmmpf',
          '3000',
          '-maxwpf',
          '5',
        ]);
        return stdout
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean)
          .join(' ');
      } finally {
        await rm(path, { force: true });
      }
    };

    /** Re-derives the utterances from the voiced frames, keeping texts already worked out. */
    const segmentAudio = (final: boolean) => {
      const gapFrames = Math.round((END_GAP_SECONDS * RATE) / FRAME);
      const found: { start: number; end: number; completed: boolean }[] = [];
      let runStart = -1;
      let lastVoiced = -1;
      voicedFrames.forEach((voiced, index) => {
        if (!voiced) return;
        if (runStart >= 0 && index - lastVoiced > gapFrames) {
          found.push({ start: runStart, end: lastVoiced + 1, completed: true });
          runStart = -1;
        }
        if (runStart < 0) runStart = index;
        lastVoiced = index;
      });
      if (runStart >= 0) {
        found.push({
          start: runStart,
          end: lastVoiced + 1,
          completed: final || voicedFrames.length - 1 - lastVoiced > gapFrames,
        });
      }
      for (const [index, next] of found.entries()) {
        const known = utterances[index];
        if (known?.completed) continue;
        const utterance: Utterance = { ...next };
        if (utterance.completed)
          utterance.text = recognize(
            utterance.start * FRAME,
            Math.min(audio.length, (utterance.end + 10) * FRAME),
          );
        utterances[index] = utterance;
      }
    };

    const sendSegments = async () => {
      const segments = [];
      for (const utterance of utterances) {
        segments.push({
          start: ((utterance.start * FRAME) / RATE).toFixed(3),
          end: ((utterance.end * FRAME) / RATE).toFixed(3),
          text: utterance.text
            ? await utterance.text
            : `(${(((utterance.end - utterance.start) * FRAME) / RATE).toFixed(1)} s of speech)`,
          completed: utterance.completed,
        });
      }
      if (segments.length > 0 && socket.readyState === socket.OPEN)
        socket.send(JSON.stringify({ uid, segments }));
    };

    const receiveAudio = (bytes: Buffer) => {
      for (let offset = 0; offset + 4 <= bytes.length; offset += 4) audio.push(bytes.readFloatLE(offset));
      session!.samples = audio.length;
      const frames = Math.floor(audio.length / FRAME);
      for (let frame = voicedFrames.length; frame < frames; frame++) {
        let sum = 0;
        for (let i = frame * FRAME; i < (frame + 1) * FRAME; i++) sum += audio[i]! * audio[i]!;
        voicedFrames.push(Math.sqrt(sum / FRAME) >= VOICED_RMS);
      }
      if (audio.length - sentUpTo >= UPDATE_EVERY_SECONDS * RATE) {
        sentUpTo = audio.length;
        segmentAudio(false);
        if (session!.config.language === null && !languageSent && utterances.length > 0) {
          languageSent = true;
          socket.send(JSON.stringify({ uid, language: 'en', language_prob: 0.97 }));
        }
        work = work.then(sendSegments);
        if (
          options.disconnectAfterSeconds !== undefined &&
          audio.length >= options.disconnectAfterSeconds * RATE
        ) {
          options.disconnectAfterSeconds = undefined; // only the first connection
          // Like END_OF_AUDIO: what was heard is completed and sent before hanging up.
          segmentAudio(true);
          work = work.then(sendSegments).then(() => {
            socket.send(JSON.stringify({ uid, message: 'DISCONNECT' }));
            closeGracefully(socket);
          });
        }
      }
    };

    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (!session) {
        const config = JSON.parse(data.toString()) as Record<string, unknown>;
        session = { config, samples: 0, endOfAudio: false, closed: false };
        sessions.push(session);
        uid = String(config.uid);
        if (options.refuse === 'WAIT') socket.send(JSON.stringify({ uid, status: 'WAIT', message: 2.5 }));
        else if (options.refuse === 'ERROR')
          socket.send(JSON.stringify({ uid, status: 'ERROR', message: 'model not found' }));
        else socket.send(JSON.stringify({ uid, message: 'SERVER_READY', backend: 'pocketsphinx' }));
        return;
      }
      if (isBinary && data.toString() === 'END_OF_AUDIO') {
        session.endOfAudio = true;
        segmentAudio(true);
        work = work.then(sendSegments).then(() => closeGracefully(socket));
        return;
      }
      if (isBinary) receiveAudio(data);
    });
    socket.on('close', () => {
      if (session) session.closed = true;
      voicedFrames = [];
    });
  });

  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sessions,
    close: async () => {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

function closeGracefully(socket: WebSocket): void {
  if (socket.readyState === socket.OPEN) socket.close(1000, 'end of audio');
}
