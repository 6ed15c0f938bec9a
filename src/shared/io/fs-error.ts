/** Whether err is a file system error (a Node errno code such as ENOENT or EACCES). */
export function isFsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}
