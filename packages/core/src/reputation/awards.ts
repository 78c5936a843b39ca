import type { DbOrTx } from '../shared/db.js';
import { awardThresholdBadges } from './badges.js';
import { appendLedger, type LedgerEntry, type LedgerRow, reverseLedger } from './ledger.js';

export type AwardPointsInput = LedgerEntry;

/**
 * Credits (or debits) a user's reputation in a program, in the caller's transaction. With a
 * sourceKey the same event never counts twice (null is returned for a repeat). Crossing a
 * threshold (100, 1,000 points) awards its badge once.
 */
export async function awardPoints(tx: DbOrTx, input: AwardPointsInput): Promise<LedgerRow | null> {
  const row = await appendLedger(tx, input);
  if (row) await awardThresholdBadges(tx, row);
  return row;
}

/**
 * Takes back the live award of an event (an undone vote, an unaccepted answer). Null when none was
 * live. Taking back a debit (a withdrawn downvote) is a credit, and can cross a threshold as well.
 */
export async function reversePoints(tx: DbOrTx, sourceKey: string, by: string | null = null): Promise<LedgerRow | null> {
  const row = await reverseLedger(tx, sourceKey, by);
  if (row) await awardThresholdBadges(tx, row);
  return row;
}
