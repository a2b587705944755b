/**
 * Reads what `pocketsphinx_continuous -time yes` prints on stdout. Per utterance it prints the
 * hypothesis on one line, then one line per token: `<word> <start s> <end s> <posterior>`, opened by
 * `<s>` and closed by `</s>`. The timed lines are the ones we use; the hypothesis line is redundant.
 */
export interface RecognizedWord {
  word: string;
  /** Seconds from the first sample the recognizer read. */
  start: number;
  end: number;
}

export interface RecognizedUtterance {
  text: string;
  start: number;
  end: number;
  words: RecognizedWord[];
}

const TIMED_TOKEN = /^(\S+)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/i;
/** `<s>`, `</s>`, `<sil>`, `[NOISE]`, `[SPEECH]`, `++BREATH++`: fillers, not words. */
const FILLER = /^(<[^>]*>|\[[^\]]*\]|\+\+.*\+\+)$/;
/** Alternate pronunciations are printed as `word(2)`. */
const PRONUNCIATION_VARIANT = /\(\d+\)$/;

export class PocketsphinxOutputParser {
  private partialLine = '';
  private open: RecognizedWord[] | null = null;

  /** Feeds stdout text as it arrives; returns the utterances it completed. */
  push(chunk: string): RecognizedUtterance[] {
    const text = this.partialLine + chunk;
    const lines = text.split('\n');
    this.partialLine = lines.pop() ?? '';
    const done: RecognizedUtterance[] = [];
    for (const line of lines) this.line(line.trim(), done);
    return done;
  }

  /** End of output: whatever is still open is as final as it will get. */
  end(): RecognizedUtterance[] {
    const done: RecognizedUtterance[] = [];
    if (this.partialLine) this.line(this.partialLine.trim(), done);
    this.partialLine = '';
    this.close(done);
    return done;
  }

  private line(line: string, done: RecognizedUtterance[]): void {
    const match = TIMED_TOKEN.exec(line);
    if (!match) return; // a hypothesis line, or a blank one for an utterance of noise
    const token = match[1]!;
    if (token === '<s>') {
      this.close(done);
      this.open = [];
      return;
    }
    if (token === '</s>') {
      this.close(done);
      return;
    }
    if (FILLER.test(token)) return;
    this.open ??= [];
    this.open.push({
      word: token.replace(PRONUNCIATION_VARIANT, ''),
      start: Number(match[2]),
      end: Number(match[3]),
    });
  }

  private close(done: RecognizedUtterance[]): void {
    const words = this.open;
    this.open = null;
    if (!words || words.length === 0) return;
    done.push({
      text: words.map((word) => word.word).join(' '),
      start: words[0]!.start,
      end: words[words.length - 1]!.end,
      words,
    });
  }
}
