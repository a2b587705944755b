import { describe, expect, it } from 'vitest';
import { encodeWav } from '../../../bot/audio-utils/wav.js';
import { OpenAiSpeechSynthesizer } from '../../../bot/voices/openai-speech.js';

const config = {
  engine: 'openai' as const,
  baseUrl: 'http://127.0.0.1:9/v1/',
  apiKey: 'sk-test',
  model: 'tts-1',
  defaultVoice: 'alloy',
  requestTimeoutMs: 1000,
};

function fakeFetch(answer: Response, seen: { url?: string; init?: RequestInit }[]): typeof fetch {
  return (async (url: string, init: RequestInit) => {
    seen.push({ url, init });
    return answer;
  }) as unknown as typeof fetch;
}

describe('OpenAiSpeechSynthesizer', () => {
  it('asks {baseUrl}/audio/speech for WAV with the model and voice, and plays the PCM it gets', async () => {
    const seen: { url?: string; init?: RequestInit }[] = [];
    const wav = encodeWav(new Int16Array([1, 2, 3]), 24_000);
    const synth = new OpenAiSpeechSynthesizer(config, fakeFetch(new Response(wav), seen));
    const audio = await synth.synthesize('Hello there.', { voice: 'nova' });
    expect(audio).toEqual({ kind: 'pcm', sampleRate: 24_000, samples: new Int16Array([1, 2, 3]) });
    expect(seen[0]?.url).toBe('http://127.0.0.1:9/v1/audio/speech');
    expect(JSON.parse(String(seen[0]?.init?.body))).toEqual({
      model: 'tts-1',
      input: 'Hello there.',
      voice: 'nova',
      response_format: 'wav',
    });
    expect(seen[0]?.init?.headers).toMatchObject({ authorization: 'Bearer sk-test' });
  });

  it('hands anything but PCM WAV to the page to decode, and uses the default voice', async () => {
    const seen: { url?: string; init?: RequestInit }[] = [];
    const mp3 = new Uint8Array([0xff, 0xfb, 0x90, 0x00]);
    const synth = new OpenAiSpeechSynthesizer(config, fakeFetch(new Response(mp3), seen));
    expect(await synth.synthesize('Hi.', {})).toEqual({ kind: 'encoded', bytes: mp3 });
    expect(JSON.parse(String(seen[0]?.init?.body)).voice).toBe('alloy');
  });

  it('fails with the status and the start of the answer', async () => {
    const synth = new OpenAiSpeechSynthesizer(
      config,
      fakeFetch(new Response('model not found', { status: 404 }), []),
    );
    await expect(synth.synthesize('Hi.', {})).rejects.toThrow(
      'speech endpoint answered 404: model not found',
    );
  });
});
