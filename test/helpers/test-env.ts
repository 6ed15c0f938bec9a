/** Where tests find their services; CI and developers run Postgres and Redis locally. */
export const ADMIN_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function databaseUrl(name: string): string {
  const u = new URL(ADMIN_DATABASE_URL);
  u.pathname = `/${name}`;
  return u.toString();
}
