/** Word error rate of a hypothesis against a reference transcript, after normalising both. */
export interface WordErrorRate {
  /** (substitutions + deletions + insertions) / reference words; 0 for two empty texts. */
  rate: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  referenceWords: number;
  hypothesisWords: number;
}

/** Lower case, punctuation gone (apostrophes inside words kept: "don't" is one word). */
export function normaliseWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s]+/gu, ' ')
    .split(/\s+/)
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => word.length > 0);
}

export function wordErrorRate(reference: string, hypothesis: string): WordErrorRate {
  const ref = normaliseWords(reference);
  const hyp = normaliseWords(hypothesis);
  // cost[i][j]: edits turning ref[0..i) into hyp[0..j); ops[i][j] remembers the last edit.
  type Op = 'match' | 'sub' | 'del' | 'ins';
  const cost: number[][] = [];
  const ops: Op[][] = [];
  for (let i = 0; i <= ref.length; i++) {
    cost.push(new Array<number>(hyp.length + 1).fill(0));
    ops.push(new Array<Op>(hyp.length + 1).fill('match'));
    cost[i]![0] = i;
    ops[i]![0] = 'del';
  }
  for (let j = 0; j <= hyp.length; j++) {
    cost[0]![j] = j;
    ops[0]![j] = 'ins';
  }
  for (let i = 1; i <= ref.length; i++) {
    for (let j = 1; j <= hyp.length; j++) {
      const same = ref[i - 1] === hyp[j - 1];
      const diagonal = cost[i - 1]![j - 1]! + (same ? 0 : 1);
      const deletion = cost[i - 1]![j]! + 1;
      const insertion = cost[i]![j - 1]! + 1;
      const best = Math.min(diagonal, deletion, insertion);
      cost[i]![j] = best;
      ops[i]![j] = best === diagonal ? (same ? 'match' : 'sub') : best === deletion ? 'del' : 'ins';
    }
  }
  let substitutions = 0;
  let deletions = 0;
  let insertions = 0;
  let i = ref.length;
  let j = hyp.length;
  while (i > 0 || j > 0) {
    const op = i === 0 ? 'ins' : j === 0 ? 'del' : ops[i]![j]!;
    if (op === 'match' || op === 'sub') {
      if (op === 'sub') substitutions++;
      i--;
      j--;
    } else if (op === 'del') {
      deletions++;
      i--;
    } else {
      insertions++;
      j--;
    }
  }
  const errors = substitutions + deletions + insertions;
  return {
    rate: ref.length === 0 ? (hyp.length === 0 ? 0 : 1) : errors / ref.length,
    substitutions,
    deletions,
    insertions,
    referenceWords: ref.length,
    hypothesisWords: hyp.length,
  };
}
