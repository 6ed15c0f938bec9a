import type { AccountSettings } from './sign-in.js';
import type { Config } from '../../shared/config/config.js';

/** The accounts' settings from configuration (PASSWORD_SCRYPT_*, API_KEY_*, SIGN_IN_*). */
export function accountSettingsFromConfig(config: Config): AccountSettings {
  return {
    scrypt: {
      N: config.PASSWORD_SCRYPT_N,
      r: config.PASSWORD_SCRYPT_R,
      p: config.PASSWORD_SCRYPT_P,
    },
    dailyTokenLimit: config.API_KEY_DAILY_TOKEN_LIMIT,
    defaultLifetimeSeconds: config.API_KEY_DEFAULT_LIFETIME_DAYS * 86_400,
    maxLifetimeSeconds: config.API_KEY_MAX_LIFETIME_DAYS * 86_400,
    signInMaxFailures: config.SIGN_IN_MAX_FAILURES,
    signInWindowSeconds: config.SIGN_IN_WINDOW_SECONDS,
  };
}
