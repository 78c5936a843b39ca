/**
 * Sensitive text forces escalation whatever the confidence (spec, error rule 9). The setting
 * AUTO_ANSWER_SENSITIVE_TOPICS lists topics; the six default names expand to the word lists below,
 * any other entry matches as a whole phrase (case-insensitive). Sensitive posts are never sent to an
 * external AI provider.
 */
export const BUILT_IN_TOPICS: Record<string, readonly string[]> = {
  'self-harm': [
    'self-harm',
    'self harm',
    'suicide',
    'suicidal',
    'kill myself',
    'end my life',
    'hurt myself',
    'cutting myself',
    'want to die',
    'overdose',
  ],
  medical: [
    'medical',
    'medication',
    'diagnosis',
    'diagnosed',
    'symptom',
    'symptoms',
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
  legal: [
    'legal',
    'lawyer',
    'attorney',
    'lawsuit',
    'sue',
    'suing',
    'court',
    'visa',
    'immigration',
    'contract dispute',
    'liability',
    'police',
  ],
  harassment: [
    'harassment',
    'harassed',
    'harassing',
    'bullying',
    'bullied',
    'stalking',
    'stalked',
    'threatened',
    'threatening me',
    'discrimination',
    'abuse',
    'abused',
    'assault',
  ],
  'payment disputes': [
    'refund dispute',
    'chargeback',
    'charged twice',
    'double charged',
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
  /** The first topic whose words occur in the text, or null. */
  match(text: string): { topic: string; phrase: string } | null;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function sensitiveMatcher(setting: string): SensitiveMatcher {
  const topics = setting
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const rules = topics.map((topic) => {
    const phrases = BUILT_IN_TOPICS[topic] ?? [topic];
    return phrases.map((phrase) => ({ topic, phrase, re: new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRe(phrase)}($|[^\\p{L}\\p{N}])`, 'iu') }));
  });
  return {
    match(text) {
      for (const group of rules) for (const r of group) if (r.re.test(text)) return { topic: r.topic, phrase: r.phrase };
      return null;
    },
  };
}
