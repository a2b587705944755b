/** Audio ready for the bot's microphone: PCM it made itself, or a clip the page decodes. */
export type SpeechAudio =
  | { kind: 'pcm'; sampleRate: number; samples: Int16Array }
  | { kind: 'encoded'; bytes: Uint8Array };

export interface VoiceRequest {
  /** A voice the engine knows; its default otherwise. */
  voice?: string | undefined;
  language?: string | undefined;
}

/** Turns text into speech (bot/voices/flite.ts offline, bot/voices/openai-speech.ts over HTTP). */
export interface SpeechSynthesizer {
  readonly name: string;
  synthesize(text: string, request: VoiceRequest): Promise<SpeechAudio>;
}
