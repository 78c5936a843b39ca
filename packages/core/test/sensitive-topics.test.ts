import { describe, expect, it } from 'vitest';
import { sensitiveMatcher, wordForms } from '../src/auto-answer/sensitive.js';
import { loadConfig } from '../src/config/load.js';

/**
 * The sensitive-topic check (spec, error rule 9): the listed words and phrases match in their regular
 * inflections, built-in lists and phrases given in AUTO_ANSWER_SENSITIVE_TOPICS alike, and unrelated
 * words that merely start like one do not.
 */
const DEFAULT_TOPICS = 'self-harm,medical,legal,harassment,payment disputes,personal data';
const m = sensitiveMatcher(DEFAULT_TOPICS);
const topicOf = (text: string) => m.match(text)?.topic ?? null;

describe('the default sensitive topics', () => {
  it('are the setting default', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://x@localhost/x' }).AUTO_ANSWER_SENSITIVE_TOPICS).toBe(DEFAULT_TOPICS);
  });

  it.each([
    // What slipped past as approved or suggested in a dry run.
    ['I keep thinking about killing myself lately', 'self-harm'],
    ['I have been hurting myself again', 'self-harm'],
    ['Lately I have been self-harming', 'self-harm'],
    ['My landlord sued me, do I need lawyers', 'legal'],
    ['Which doctors on campus', 'medical'],
    ['My roommate is abusing me', 'harassment'],
    // Other inflections and spellings.
    ['I killed myself studying for that exam', 'self-harm'],
    ['thoughts of self harm', 'self-harm'],
    ['selfharm', 'self-harm'],
    ['self\u2010harmed last week', 'self-harm'],
    ['I started cutting myself', 'self-harm'],
    ['I wanted to die', 'self-harm'],
    ['She overdosed', 'self-harm'],
    ['Can they diagnose me here?', 'medical'],
    ['I was diagnosed last year', 'medical'],
    ['My symptoms got worse', 'medical'],
    ['suing the school', 'legal'],
    ['Should I get an attorney?', 'legal'],
    ['He sues everyone', 'legal'],
    ['Are student visas affected?', 'legal'],
    ['He keeps harassing me', 'harassment'],
    ['My ex is stalking me', 'harassment'],
    ['She has a stalker', 'harassment'],
    ['I was bullied in class', 'harassment'],
    ['he bullies me', 'harassment'],
    ['he threatened to post my photos', 'harassment'],
    ['He is threatening me', 'harassment'],
    ['I was discriminated against', 'harassment'],
    ['My partner is abusive', 'harassment'],
    ['abusers in the chat', 'harassment'],
    ['I was charged twice for the course', 'payment disputes'],
    ['I got double-charged', 'payment disputes'],
    ['How do I dispute the charges?', 'payment disputes'],
    ['Where do I put my bank accounts?', 'personal data'],
    ['Please delete my data', 'personal data'],
    ['Can you delete my data now, I am deleting my data everywhere', 'personal data'],
  ])('%j is %s', (text, topic) => {
    expect(topicOf(text)).toBe(topic);
  });

  it.each([
    'How do I reset my password?',
    'Where is the courtyard?',
    // A word that starts like a listed one is not an inflection of it.
    'Is there a doctoral programme?',
    'I need to pursue this issue',
    'Is the suede jacket still for sale?',
    'What does "legalese" mean in the syllabus?',
    'The weather looks threatening for the picnic',
    'Can I cut the video shorter?',
    'How long do refunds take?',
  ])('%j is not sensitive', (text) => {
    expect(m.match(text)).toBeNull();
  });

  it('"abuse" in another sense still matches: the list is meant to escalate too much rather than too little', () => {
    expect(topicOf('This is an abuse of notation')).toBe('harassment');
  });

  it('reports the listed phrase that matched', () => {
    expect(m.match('My landlord sued me')).toEqual({ topic: 'legal', phrase: 'sue' });
  });
});

describe('inflections', () => {
  it('follow English spelling: e dropped, y to i, consonant doubled, -es after a sibilant', () => {
    expect(wordForms('abuse')).toEqual(expect.arrayContaining(['abuse', 'abuses', 'abused', 'abusing', 'abuser', 'abusers']));
    expect(wordForms('sue')).toEqual(expect.arrayContaining(['sues', 'sued', 'suing']));
    expect(wordForms('bully')).toEqual(expect.arrayContaining(['bullies', 'bullied', 'bullying']));
    expect(wordForms('cut')).toEqual(expect.arrayContaining(['cuts', 'cutting']));
    expect(wordForms('harass')).toEqual(expect.arrayContaining(['harasses', 'harassed', 'harassing', 'harasser']));
    expect(wordForms('die')).toEqual(expect.arrayContaining(['dies', 'died', 'dying']));
    expect(wordForms('liability')).toContain('liabilities');
  });
  it('leave function words and short words alone', () => {
    expect(wordForms('myself')).toEqual(['myself']);
    expect(wordForms('is')).toEqual(['is']);
    expect(wordForms('to')).toEqual(['to']);
  });
});

describe('topics given in AUTO_ANSWER_SENSITIVE_TOPICS', () => {
  const custom = sensitiveMatcher(' Exam Cheating , grade appeal,legal ');
  it('match as phrases, case-insensitively, each word in its inflections', () => {
    expect(custom.match('Is exam cheating reported?')).toEqual({ topic: 'exam cheating', phrase: 'exam cheating' });
    expect(custom.match('Rumours of EXAMS CHEATING')?.topic).toBe('exam cheating');
    expect(custom.match('How do grade appeals work?')?.topic).toBe('grade appeal');
    expect(custom.match('grade-appealing')?.topic).toBe('grade appeal');
  });
  it('keep their words in order and whole', () => {
    expect(custom.match('cheating on an exam')).toBeNull();
    expect(custom.match('the examination')).toBeNull();
  });
  it('a default name next to them still expands to its list; a list without it does not match its words', () => {
    expect(custom.match('My landlord sued me')?.topic).toBe('legal');
    expect(custom.match('Which doctors on campus')).toBeNull();
  });
});
