/**
 * Sensitive text forces escalation whatever the confidence (spec, error rule 9). The setting
 * AUTO_ANSWER_SENSITIVE_TOPICS lists topics; the six default names expand to the word lists below,
 * any other entry is a phrase of its own. Sensitive posts are never sent to an external AI provider.
 *
 * Every phrase (built-in or given) matches case-insensitively as whole words, each word of it also in
 * its regular English inflections (wordForms): a plural or third person (-s, -es, -ies), a past (-ed,
 * -d, -ied), a present participle (-ing) and an agent noun (-er, -ers), with the final e dropped and the
 * final consonant doubled where English spelling does ("abuse": abuses, abused, abusing, abuser; "cut
 * myself": cutting myself). The lists hold base forms for that reason. Words are joined by spaces,
 * hyphens, underscores or nothing ("self-harm": self harm, selfharm, self-harming). Function words
 * (my, myself, to, the, is, ...) and words under three letters are not inflected, and no form is ever
 * reduced: a given word matches itself and its inflections, never a stem of it ("doctor" does not
 * match "doctoral", "sue" does not match "issue" or "suede").
 */
export const BUILT_IN_TOPICS: Record<string, readonly string[]> = {
  'self-harm': ['self-harm', 'suicide', 'suicidal', 'kill myself', 'end my life', 'hurt myself', 'cut myself', 'want to die', 'overdose'],
  medical: [
    'medical',
    'medication',
    'diagnosis',
    'diagnose',
    'symptom',
    'prescription',
    'doctor',
    'therapist',
    'pregnant',
    'pregnancy',
    'disease',
    'illness',
    'mental health',
    'allergic reaction',
  ],
  legal: ['legal', 'lawyer', 'attorney', 'lawsuit', 'sue', 'court', 'visa', 'immigration', 'contract dispute', 'liability', 'police'],
  harassment: [
    'harassment',
    'harass',
    'bully',
    'stalk',
    // "threatening" alone is also weather; a threat made at someone is one of these.
    'threatened',
    'threaten me',
    'discrimination',
    'discriminate against',
    'abuse',
    'abusive',
    'assault',
  ],
  'payment disputes': [
    'refund dispute',
    'chargeback',
    'charge twice',
    'double charge',
    'dispute a charge',
    'dispute the charge',
    'payment dispute',
    'billing dispute',
    'unauthorized charge',
    'fraudulent charge',
    'stolen card',
  ],
  'personal data': [
    'personal data',
    'social security',
    'ssn',
    'passport number',
    'credit card number',
    'bank account',
    'home address',
    'date of birth',
    'password is',
    'gdpr',
    'delete my data',
    'data breach',
  ],
};

export interface SensitiveMatcher {
  /** The first topic whose words occur in the text, or null (`phrase`: the listed phrase that matched). */
  match(text: string): { topic: string; phrase: string } | null;
}

/** A phrase's glue, never inflected ("kill myself" is not "kill myselves"). */
const FUNCTION_WORDS = new Set(
  'a an the my myself me i you your yourself we our us he him his she her it its they them their this that these those is am are was were be been to of in on at by for from with about and or not no'.split(
    ' ',
  ),
);
/** What may stand between the words of a phrase: spaces, hyphens (ASCII and Unicode), underscores, or nothing. */
const JOINER = '[\\s\\-\\u2010\\u2011_]*';

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A word and its regular inflections (-s/-es/-ies, -ed/-d/-ied, -ing, -er/-ers), by English spelling
 * rules; a word that is already inflected only gains forms that never occur ("harassed": harasseds),
 * so the lists and the setting should name base forms. Function words, words under three letters and
 * words with anything but ASCII letters stand as written.
 */
export function wordForms(word: string): string[] {
  const w = word.toLowerCase();
  if (w.length < 3 || FUNCTION_WORDS.has(w) || !/^[a-z]+$/.test(w)) return [w];
  const forms = new Set([w]);
  const consonantY = /[^aeiou]y$/.test(w);
  // A short final syllable (consonant, one vowel, consonant) may double its consonant: cut, cutting.
  // Both spellings are kept (threaten: threatened, not threatenned), the wrong one never occurs.
  const double = /(^|[^aeiou])[aeiou][b-df-hj-np-tvz]$/.test(w) ? w.slice(-1) : '';
  forms.add(/(s|x|z|ch|sh)$/.test(w) ? `${w}es` : consonantY ? `${w.slice(0, -1)}ies` : `${w}s`);
  for (const suffix of ['ed', 'er']) {
    const f = w.endsWith('e') ? `${w}${suffix.slice(1)}` : consonantY ? `${w.slice(0, -1)}i${suffix}` : `${w}${suffix}`;
    forms.add(f);
    if (double) forms.add(`${w}${double}${suffix}`);
  }
  forms.add(w.endsWith('ie') ? `${w.slice(0, -2)}ying` : /[^aeiouy]e$|[^e]ue$/.test(w) ? `${w.slice(0, -1)}ing` : `${w}ing`);
  if (double) forms.add(`${w}${double}ing`);
  for (const f of [...forms]) if (f.endsWith('er')) forms.add(`${f}s`);
  return [...forms];
}

/** The pattern of one phrase: its words in order, each in any of its forms, joined as JOINER allows. */
export function phrasePattern(phrase: string): RegExp {
  const words = phrase
    .trim()
    .split(/[\s\-\u2010\u2011_]+/)
    .filter(Boolean);
  const body = words.map((word) => `(?:${wordForms(word).map(escapeRe).join('|')})`).join(JOINER);
  return new RegExp(`(?:^|[^\\p{L}\\p{N}])${body}(?:$|[^\\p{L}\\p{N}])`, 'iu');
}

export function sensitiveMatcher(setting: string): SensitiveMatcher {
  const topics = setting
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const rules = topics.flatMap((topic) =>
    (BUILT_IN_TOPICS[topic] ?? [topic]).map((phrase) => ({ topic, phrase, re: phrasePattern(phrase) })),
  );
  return {
    match(text) {
      for (const r of rules) if (r.re.test(text)) return { topic: r.topic, phrase: r.phrase };
      return null;
    },
  };
}
