import type { SpeechConfig } from '../../shared/contract/bot-config.js';
import { decodeWav } from '../audio-utils/wav.js';
import type { SpeechAudio, SpeechSynthesizer, VoiceRequest } from './voice.js';

type OpenAiSpeechConfig = Extract<SpeechConfig, { engine: 'openai' }>;

/** An OpenAI-compatible `POST {baseUrl}/audio/speech` (hosted, or a self-hosted server speaking the same API). */
export class OpenAiSpeechSynthesizer implements SpeechSynthesizer {
  readonly name = 'openai';

  constructor(
    private readonly config: OpenAiSpeechConfig,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async synthesize(text: string, request: VoiceRequest): Promise<SpeechAudio> {
    const url = `${this.config.baseUrl.replace(/\/+$/, '')}/audio/speech`;
    const response = await this.fetchImpl(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: this.config.model,
        input: text,
        voice: request.voice ?? this.config.defaultVoice,
        response_format: 'wav',
      }),
      signal: AbortSignal.timeout(this.config.requestTimeoutMs),
    });
    if (!response.ok) {
      const detail = (await response.text().catch(() => '')).slice(0, 200);
      throw new Error(`speech endpoint answered ${response.status}${detail ? `: ${detail}` : ''}`);
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    try {
      const wav = decodeWav(bytes);
      return { kind: 'pcm', sampleRate: wav.sampleRate, samples: wav.samples };
    } catch {
      // Not 16-bit PCM WAV (a server that ignores response_format): the page decodes it.
      return { kind: 'encoded', bytes };
    }
  }
}
