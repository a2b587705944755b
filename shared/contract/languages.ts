/**
 * Whisper-style servers report the detected language either as a code ("en") or as its English
 * name ("english"); segments carry codes, so names are mapped here.
 */
const CODES_BY_NAME: Readonly<Record<string, string>> = {
  afrikaans: 'af',
  albanian: 'sq',
  amharic: 'am',
  arabic: 'ar',
  armenian: 'hy',
  assamese: 'as',
  azerbaijani: 'az',
  bashkir: 'ba',
  basque: 'eu',
  belarusian: 'be',
  bengali: 'bn',
  bosnian: 'bs',
  breton: 'br',
  bulgarian: 'bg',
  burmese: 'my',
  cantonese: 'yue',
  castilian: 'es',
  catalan: 'ca',
  chinese: 'zh',
  croatian: 'hr',
  czech: 'cs',
  danish: 'da',
  dutch: 'nl',
  english: 'en',
  estonian: 'et',
  faroese: 'fo',
  finnish: 'fi',
  flemish: 'nl',
  french: 'fr',
  galician: 'gl',
  georgian: 'ka',
  german: 'de',
  greek: 'el',
  gujarati: 'gu',
  haitian: 'ht',
  'haitian creole': 'ht',
  hausa: 'ha',
  hawaiian: 'haw',
  hebrew: 'he',
  hindi: 'hi',
  hungarian: 'hu',
  icelandic: 'is',
  indonesian: 'id',
  italian: 'it',
  japanese: 'ja',
  javanese: 'jw',
  kannada: 'kn',
  kazakh: 'kk',
  khmer: 'km',
  korean: 'ko',
  lao: 'lo',
  latin: 'la',
  latvian: 'lv',
  letzeburgesch: 'lb',
  lingala: 'ln',
  lithuanian: 'lt',
  luxembourgish: 'lb',
  macedonian: 'mk',
  malagasy: 'mg',
  malay: 'ms',
  malayalam: 'ml',
  maltese: 'mt',
  mandarin: 'zh',
  maori: 'mi',
  marathi: 'mr',
  moldavian: 'ro',
  moldovan: 'ro',
  mongolian: 'mn',
  myanmar: 'my',
  nepali: 'ne',
  norwegian: 'no',
  nynorsk: 'nn',
  occitan: 'oc',
  panjabi: 'pa',
  pashto: 'ps',
  persian: 'fa',
  polish: 'pl',
  portuguese: 'pt',
  punjabi: 'pa',
  pushto: 'ps',
  romanian: 'ro',
  russian: 'ru',
  sanskrit: 'sa',
  serbian: 'sr',
  shona: 'sn',
  sindhi: 'sd',
  sinhala: 'si',
  sinhalese: 'si',
  slovak: 'sk',
  slovenian: 'sl',
  somali: 'so',
  spanish: 'es',
  sundanese: 'su',
  swahili: 'sw',
  swedish: 'sv',
  tagalog: 'tl',
  tajik: 'tg',
  tamil: 'ta',
  tatar: 'tt',
  telugu: 'te',
  thai: 'th',
  tibetan: 'bo',
  turkish: 'tr',
  turkmen: 'tk',
  ukrainian: 'uk',
  urdu: 'ur',
  uzbek: 'uz',
  valencian: 'ca',
  vietnamese: 'vi',
  welsh: 'cy',
  yiddish: 'yi',
  yoruba: 'yo',
};

const KNOWN_CODES = new Set(Object.values(CODES_BY_NAME));

/**
 * "en", "EN", "en-US", "en_us" and "English" all give "en"; null when the input names no language
 * this table knows (an unknown code of the right shape is passed through lower-cased).
 */
export function toLanguageCode(input: string | null | undefined): string | null {
  if (!input) return null;
  const value = input.trim().toLowerCase();
  if (value === '') return null;
  const byName = CODES_BY_NAME[value];
  if (byName) return byName;
  const primary = value.split(/[-_]/)[0] ?? '';
  if (KNOWN_CODES.has(primary)) return primary;
  return /^[a-z]{2,3}$/.test(primary) ? primary : null;
}

export function isEnglish(language: string | null): boolean {
  return language === null || toLanguageCode(language) === 'en';
}

export const TRANSCRIPTION_ENGINES = ['embedded', 'openai', 'whisperlive'] as const;
export type TranscriptionEngine = (typeof TRANSCRIPTION_ENGINES)[number];

/** Whisper's languages, which the openai and whisperlive engines take. */
const WHISPER_LANGUAGES: readonly string[] = [...KNOWN_CODES].sort();

/** What each engine can transcribe (and translate from): the embedded one knows only English. */
export const ENGINE_LANGUAGES: Readonly<Record<TranscriptionEngine, readonly string[]>> = {
  embedded: ['en'],
  openai: WHISPER_LANGUAGES,
  whisperlive: WHISPER_LANGUAGES,
};

/**
 * Why the engine can't take this language (the API answers it as a 400), or undefined when it can.
 * Checked when a bot is asked for, so the request fails instead of the meeting, later, in its container.
 */
export function unsupportedLanguage(engine: TranscriptionEngine, language: string): string | undefined {
  const code = toLanguageCode(language);
  const supported = ENGINE_LANGUAGES[engine];
  if (code !== null && supported.includes(code)) return undefined;
  if (engine === 'embedded') {
    return `language: the embedded engine transcribes only ${supported.join(', ')}; set TRANSCRIPTION_ENGINE to openai or whisperlive for others`;
  }
  return `language: the ${engine} engine does not transcribe '${language}'; it transcribes ${supported.join(', ')}`;
}
