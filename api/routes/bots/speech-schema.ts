import { z } from 'zod';
import type { ClipFormat, SpeakRequest } from '../../../shared/bots/speech.js';
import {
  languageCode,
  SPEAK_AUDIO_FORMATS,
  SPEAK_AUDIO_MAX_BYTES,
  SPEAK_TEXT_MAX_CHARS,
} from '../../../shared/contract/commands.js';

/** The clip formats a request may name: the bot's, and raw PCM (Vexa's `pcm`), wrapped as WAV by the API. */
const REQUEST_AUDIO_FORMATS = [...SPEAK_AUDIO_FORMATS, 'pcm'] as const;
const audioFormat = z.enum(REQUEST_AUDIO_FORMATS, {
  error: `must be one of ${REQUEST_AUDIO_FORMATS.join(', ')}`,
});

/** Vexa's default voice name: the engine's own default here. */
const AUTO_VOICE = 'auto';
/** Vexa's default sample rate of raw PCM. */
const DEFAULT_PCM_SAMPLE_RATE = 24_000;

export const speakRequest = z
  .object(
    {
      text: z
        .string({ error: 'must be a string' })
        .trim()
        .min(1, 'must not be empty')
        .max(SPEAK_TEXT_MAX_CHARS, `must be at most ${SPEAK_TEXT_MAX_CHARS} characters`)
        .optional()
        .describe('Synthesised in the bot (flite by default)'),
      voice: z
        .string({ error: 'must be a string' })
        .min(1)
        .max(64, 'must be at most 64 characters')
        .optional()
        .describe(
          "flite: slt, kal, kal16, awb or rms; an OpenAI-compatible engine: its voice names; `auto` (Vexa's default): the engine's default",
        ),
      language: languageCode.optional(),
      audio_base64: z
        .base64({ error: 'must be base64' })
        .max(
          Math.ceil((SPEAK_AUDIO_MAX_BYTES * 4) / 3) + 4,
          `must decode to at most ${SPEAK_AUDIO_MAX_BYTES} bytes`,
        )
        .optional()
        .describe(
          `A clip to play as is, at most ${SPEAK_AUDIO_MAX_BYTES} bytes decoded (the route's body cap is sized for it)`,
        ),
      audio_url: z
        .url({ error: 'must be a URL' })
        .max(2048, 'must be at most 2048 characters')
        .optional()
        .describe('A clip the API fetches under the webhook address rules'),
      audio_format: audioFormat
        .optional()
        .describe(
          "The clip's format (default wav); `pcm` is raw signed 16-bit little-endian samples, sent on as WAV",
        ),
      format: audioFormat.optional().describe("Vexa's name for audio_format"),
      sample_rate: z
        .number({ error: 'must be a number' })
        .int('must be an integer')
        .min(8000, 'must be at least 8000')
        .max(96_000, 'must be at most 96000')
        .optional()
        .describe(`Hz, for pcm only (default ${DEFAULT_PCM_SAMPLE_RATE}, as Vexa)`),
      channels: z
        .number({ error: 'must be a number' })
        .int('must be an integer')
        .min(1, 'must be 1 or 2')
        .max(2, 'must be 1 or 2')
        .optional()
        .describe('For pcm only (default 1)'),
      provider: z
        .string({ error: 'must be a string' })
        .max(64)
        .optional()
        .describe(
          "Vexa's choice of speech engine: accepted and ignored (the operator's SPEECH_ENGINE decides)",
        ),
    },
    { error: 'must be a JSON object' },
  )
  .refine(
    (body) =>
      [body.text, body.audio_base64, body.audio_url].filter((value) => value !== undefined).length === 1,
    { error: 'must contain exactly one of text, audio_base64, audio_url' },
  )
  .refine((body) => body.audio_format === undefined || body.format === undefined, {
    error: 'is the same as audio_format: give one of them',
    path: ['format'],
  })
  .refine((body) => body.text === undefined || (body.audio_format ?? body.format) === undefined, {
    error: 'is only for audio_base64 or audio_url',
    path: ['audio_format'],
  })
  .refine(
    (body) =>
      (body.audio_format ?? body.format) === 'pcm' ||
      (body.sample_rate === undefined && body.channels === undefined),
    { error: 'sample_rate and channels are only for pcm audio', path: ['audio_format'] },
  )
  .meta({ id: 'SpeakRequest' });
export type SpeakRequestBody = z.infer<typeof speakRequest>;

export function speakRequestOf(body: SpeakRequestBody): SpeakRequest {
  const named = body.audio_format ?? body.format ?? 'wav';
  const format: ClipFormat =
    named === 'pcm'
      ? { pcm: { sampleRate: body.sample_rate ?? DEFAULT_PCM_SAMPLE_RATE, channels: body.channels ?? 1 } }
      : named;
  const content =
    body.text !== undefined
      ? { text: body.text }
      : body.audio_base64 !== undefined
        ? { audio: { format, base64: body.audio_base64 } }
        : { audioUrl: { url: body.audio_url as string, format } };
  const voice = body.voice === AUTO_VOICE ? undefined : body.voice;
  return { content, voice, language: body.language };
}
