import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * A real OpenAI-compatible transcription server for tests: it reads the multipart upload, checks
 * the WAV with sox and transcribes it with pocketsphinx, so what it answers comes from the audio.
 */
export type ScriptedAnswer =
  /** Transcribe the audio (the default). */
  | 'transcribe'
  /** Answer this status with an OpenAI-style error body. */
  | { status: number }
  /** Never answer (the client has to time out). */
  | 'hang'
  /** Answer this text at once, without the recognizer (tests of retries, not of recognition). */
  | { text: string };

export interface ReceivedRequest {
  path: string;
  fields: Record<string, string>;
  authorization: string | undefined;
  audioSeconds: number;
  answered: number | 'aborted';
  text?: string;
}

export interface TranscriptionServer {
  baseUrl: string;
  requests: ReceivedRequest[];
  /** Answers for the next requests, in order; after them every request is transcribed. */
  script(...answers: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

interface Word {
  word: string;
  start: number;
  end: number;
}

export async function startTranscriptionServer(): Promise<TranscriptionServer> {
  const requests: ReceivedRequest[] = [];
  const answers: ScriptedAnswer[] = [];
  const workDir = await mkdtemp(join(tmpdir(), 'transcription-server-'));
  let uploads = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (req.method !== 'POST' || (path !== '/v1/audio/transcriptions' && path !== '/v1/audio/translations')) {
      return json(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const form = await new Response(body, {
      headers: { 'content-type': req.headers['content-type'] ?? '' },
    }).formData();
    const fields: Record<string, string> = {};
    form.forEach((value, name) => {
      if (typeof value === 'string') fields[name] = value;
    });
    const file = form.get('file');
    const received: ReceivedRequest = {
      path,
      fields,
      authorization: req.headers.authorization,
      audioSeconds: 0,
      answered: 'aborted',
    };
    requests.push(received);
    if (!(file instanceof Blob) || !fields.model) {
      received.answered = 400;
      return json(res, 400, { error: { message: 'file and model are required' } });
    }
    const wavPath = join(workDir, `upload-${uploads++}.wav`);
    await writeFile(wavPath, new Uint8Array(await file.arrayBuffer()));
    const [rate, channels, bits, seconds] = await Promise.all(
      ['-r', '-c', '-b', '-D'].map(async (flag) =>
        (await execFileAsync('soxi', [flag, wavPath])).stdout.trim(),
      ),
    );
    received.audioSeconds = Number(seconds);
    if (rate !== '16000' || channels !== '1' || bits !== '16') {
      received.answered = 400;
      return json(res, 400, {
        error: { message: `expected 16 kHz mono 16-bit WAV, got ${rate} Hz ${channels} ch ${bits} bit` },
      });
    }

    const answer = answers.shift() ?? 'transcribe';
    if (answer === 'hang') {
      res.on('close', () => rm(wavPath, { force: true }));
      return;
    }
    if (typeof answer === 'object' && 'text' in answer) {
      await rm(wavPath, { force: true });
      return answerText(res, received, path, answer.text, { start: 0, end: received.audioSeconds });
    }
    if (answer !== 'transcribe') {
      received.answered = answer.status;
      await rm(wavPath, { force: true });
      return json(res, answer.status, { error: { message: `scripted ${answer.status}` } });
    }
    const words = await recognize(wavPath);
    await rm(wavPath, { force: true });
    const text = words.map((word) => word.word).join(' ');
    answerText(
      res,
      received,
      path,
      text,
      words.length ? { start: words[0]!.start, end: words.at(-1)!.end } : null,
    );
  }

  function answerText(
    res: ServerResponse,
    received: ReceivedRequest,
    path: string,
    text: string,
    span: { start: number; end: number } | null,
  ) {
    received.text = text;
    received.answered = 200;
    json(res, 200, {
      task: path.endsWith('translations') ? 'translate' : 'transcribe',
      // Whisper reports the language by name.
      language: 'english',
      duration: received.audioSeconds,
      text,
      segments: span ? [{ id: 0, ...span, text }] : [],
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) json(res, 500, { error: { message: error.message } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...next) => answers.push(...next),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** pocketsphinx on the upload (it reads WAV directly); words with times, fillers left out. */
async function recognize(wavPath: string): Promise<Word[]> {
  const { stdout } = await execFileAsync(
    'pocketsphinx_continuous',
    ['-infile', wavPath, '-time', 'yes', '-pl_window', '10', '-maxhmmpf', '3000', '-maxwpf', '5'],
    { maxBuffer: 4 * 1024 * 1024 },
  );
  const words: Word[] = [];
  for (const line of stdout.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length !== 4 || Number.isNaN(Number(parts[1])) || Number.isNaN(Number(parts[3]))) continue;
    const word = parts[0]!;
    if (word.startsWith('<') || word.startsWith('[') || word.startsWith('+')) continue;
    words.push({ word: word.replace(/\(\d+\)$/, ''), start: Number(parts[1]), end: Number(parts[2]) });
  }
  return words;
}
