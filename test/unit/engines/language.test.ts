import { describe, expect, it } from 'vitest';
import { isEnglish, toLanguageCode } from '../../../shared/contract/languages.js';

describe('toLanguageCode', () => {
  it('maps the names Whisper servers report to codes', () => {
    expect(toLanguageCode('english')).toBe('en');
    expect(toLanguageCode('German')).toBe('de');
    expect(toLanguageCode('haitian creole')).toBe('ht');
    expect(toLanguageCode('cantonese')).toBe('yue');
  });

  it('reduces codes and locales to the primary language', () => {
    expect(toLanguageCode('en')).toBe('en');
    expect(toLanguageCode('EN-us')).toBe('en');
    expect(toLanguageCode('pt_BR')).toBe('pt');
    expect(toLanguageCode('haw')).toBe('haw');
  });

  it('returns null for nothing or nonsense', () => {
    expect(toLanguageCode(null)).toBeNull();
    expect(toLanguageCode('')).toBeNull();
    expect(toLanguageCode('klingonese')).toBeNull();
  });
});

describe('isEnglish', () => {
  it('treats no language as English, for engines that only know English', () => {
    expect(isEnglish(null)).toBe(true);
    expect(isEnglish('en-GB')).toBe(true);
    expect(isEnglish('english')).toBe(true);
    expect(isEnglish('fr')).toBe(false);
  });
});
