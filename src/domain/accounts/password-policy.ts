import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import { AccountError } from './account-error.js';

/**
 * The lowest zxcvbn score a new password may have. zxcvbn scores 0-4 by the guesses an attacker
 * needs (its dictionaries: common passwords, names, keyboard walks, dates, l33t variants); 3
 * means about 10^10 guesses ("safely unguessable"), the minimum zxcvbn's authors recommend.
 * `12345678`, `password`, `qwertyuiop` and `Passw0rd!` score 0-1 and are refused. OWASP's
 * Authentication cheat sheet (after NIST SP 800-63B) asks for exactly this kind of check against
 * common and breached passwords, rather than composition rules.
 */
export const PASSWORD_MIN_SCORE = 3;

/** zxcvbn's warnings come as keys (its English texts live in another package): ours, in words. */
const WARNINGS: Record<string, string> = {
  topTen: 'it is one of the ten most common passwords',
  topHundred: 'it is one of the hundred most common passwords',
  common: 'it is a commonly used password',
  similarToCommon: 'it is close to a commonly used password',
  pwned: 'it has appeared in data breaches',
  userInputs: 'it contains your username or the site name',
  straightRow: 'it is a row of keys on the keyboard',
  keyPattern: 'it is a short keyboard pattern',
  simpleRepeat: 'it repeats characters',
  extendedRepeat: 'it repeats a pattern',
  sequences: 'it is a common sequence of characters',
  recentYears: 'it is a recent year',
  dates: 'it is a date',
  wordByItself: 'it is a single word',
  namesByThemselves: 'it is a name',
  commonNames: 'it is a common name',
};

let checker: ZxcvbnFactory | undefined;

/** Built on first use: loading the dictionaries costs some milliseconds and memory. */
function zxcvbn(): ZxcvbnFactory {
  return (checker ??= new ZxcvbnFactory({
    dictionary: { ...dictionary },
    graphs: adjacencyGraphs,
  }));
}

export interface PasswordStrength {
  /** 0-4 (zxcvbn). */
  score: number;
  acceptable: boolean;
  /** Why it is guessable, when zxcvbn says (English, lower case: "it is ..."). */
  warning: string;
}

/**
 * How guessable a new password is; `context` (the username, the site's name) counts as words
 * an attacker would try first. zxcvbn reads at most its first 256 characters (its maxLength), so
 * the check's cost is bounded whatever the length.
 */
export function passwordStrength(
  password: string,
  context: readonly string[] = [],
): PasswordStrength {
  const result = zxcvbn().check(password, [...context, 'emutrack']);
  return {
    score: result.score,
    acceptable: result.score >= PASSWORD_MIN_SCORE,
    warning: WARNINGS[result.feedback.warning ?? ''] ?? '',
  };
}

/**
 * Throws invalid_param naming `field` when the new password is too easy to guess (see
 * PASSWORD_MIN_SCORE). Length is checked separately (assertPassword).
 */
export function assertPasswordStrong(
  password: string,
  context: readonly string[] = [],
  field = 'password',
): void {
  const strength = passwordStrength(password, context);
  if (strength.acceptable) return;
  const advice = strength.warning ? ` (${strength.warning})` : '';
  throw new AccountError(
    'invalid_param',
    `${field}: too easy to guess${advice}; use a longer password, for example several unrelated words`,
    field,
  );
}
