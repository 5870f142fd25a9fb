// Word error rate: how far a transcript is from what was said, as speech recognition is usually
// scored. Both texts are lower-cased, stripped of punctuation (hyphens split words), and aligned
// word by word (Levenshtein); WER = (substitutions + deletions + insertions) / reference words.

export type WordErrorRate = {
  rate: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  referenceWords: number;
  hypothesisWords: number;
};

export const normalizeWords = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/[‐‑–—-]/g, ' ')
    .replace(/[’‘]/g, "'")
    .replace(/[^\p{L}\p{N}'\s]/gu, ' ')
    .split(/\s+/)
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => word !== '');

export const wordErrorRate = (reference: string, hypothesis: string): WordErrorRate => {
  const said = normalizeWords(reference);
  const heard = normalizeWords(hypothesis);
  // cost[i][j]: edits turning the first i reference words into the first j heard ones.
  const cost = Array.from({ length: said.length + 1 }, (_, i) => Array.from({ length: heard.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= said.length; i++) {
    for (let j = 1; j <= heard.length; j++) {
      const same = said[i - 1] === heard[j - 1] ? 0 : 1;
      cost[i]![j] = Math.min(cost[i - 1]![j - 1]! + same, cost[i - 1]![j]! + 1, cost[i]![j - 1]! + 1);
    }
  }
  let substitutions = 0;
  let deletions = 0;
  let insertions = 0;
  for (let i = said.length, j = heard.length; i > 0 || j > 0; ) {
    const here = cost[i]![j]!;
    if (i > 0 && j > 0 && here === cost[i - 1]![j - 1]! + (said[i - 1] === heard[j - 1] ? 0 : 1)) {
      if (said[i - 1] !== heard[j - 1]) substitutions++;
      i--;
      j--;
    } else if (i > 0 && here === cost[i - 1]![j]! + 1) {
      deletions++;
      i--;
    } else {
      insertions++;
      j--;
    }
  }
  const errors = substitutions + deletions + insertions;
  return {
    rate: said.length === 0 ? (heard.length === 0 ? 0 : 1) : errors / said.length,
    substitutions,
    deletions,
    insertions,
    referenceWords: said.length,
    hypothesisWords: heard.length,
  };
};
