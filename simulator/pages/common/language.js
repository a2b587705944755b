// The meeting pages' language (the `locale` trap). A German meeting shows German unless the request
// asks for English, as the real sites do (Meet: `hl=en`; Teams: the browser's language), and
// `ignoreLanguageHints` keeps it German whatever the request says.

/** 'de' or 'en' for a meeting's traps, given whether the request asks for English. */
export function pageLanguage(traps, asksForEnglish) {
  if (traps?.locale !== 'de') return 'en';
  return asksForEnglish && !traps.ignoreLanguageHints ? 'en' : 'de';
}

/**
 * A translator over English texts: `t('More options for {0}', name)`. `german` maps the English
 * text (with its {n} placeholders) to the German one; `language()` says which to show now.
 */
export function translator(german, language) {
  return (text, ...args) => {
    let chosen = text;
    if (language() === 'de') {
      chosen = german[text];
      if (chosen === undefined) {
        console.warn('no German text for', text);
        chosen = text;
      }
    }
    return chosen.replace(/\{(\d+)\}/g, (_match, index) => String(args[Number(index)] ?? ''));
  };
}
