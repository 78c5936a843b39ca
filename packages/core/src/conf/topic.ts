import { splitPatternList } from '../config/load.js';
import type { Config } from '../config/schema.js';

const MAX_TOPIC = 300;

/** Control and format characters removed, whitespace collapsed, at most 300 characters. */
export function sanitizeTopic(raw: string | null | undefined): string {
  const clean = (raw ?? '')
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cn}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const cut = clean.length > MAX_TOPIC ? clean.slice(0, MAX_TOPIC).replace(/[\ud800-\udbff]$/, '') : clean;
  return cut || 'Untitled meeting';
}

const compiled = new Map<string, RegExp[]>();

/**
 * CONF_TOPIC_BLACKLIST as case-insensitive regular expressions, split as the settings check splits them
 * (splitPatternList: commas inside (), [] or {n,m}, or after a backslash, belong to the pattern), and
 * validated when the settings load.
 */
export function topicBlacklist(config: Pick<Config, 'CONF_TOPIC_BLACKLIST'>): RegExp[] {
  let list = compiled.get(config.CONF_TOPIC_BLACKLIST);
  if (!list) {
    list = splitPatternList(config.CONF_TOPIC_BLACKLIST).map((p) => new RegExp(p, 'i'));
    compiled.set(config.CONF_TOPIC_BLACKLIST, list);
  }
  return list;
}

/** The first blacklist pattern the (sanitised) topic matches, or null. */
export function blacklistedBy(config: Pick<Config, 'CONF_TOPIC_BLACKLIST'>, topic: string): string | null {
  return topicBlacklist(config).find((r) => r.test(topic))?.source ?? null;
}
