-- A refused webhook delivery used to tell its owner what the endpoint's host name resolved to
-- ("the host h is, or resolves to, a private or loopback address (10.0.0.5)") or that it did
-- not resolve at all. Both now read "the address of the host h is not allowed"; the texts
-- already stored (the endpoint's last error and disabling reason, each delivery's last error)
-- are rewritten the same way, so what a name resolves to is no longer shown from old rows.
UPDATE webhook_endpoints
   SET last_error = regexp_replace(last_error,
         'the host (\S+) (is, or resolves to, a private or loopback address \([^)]*\)|cannot be resolved)',
         'the address of the host \1 is not allowed', 'g')
 WHERE last_error ~ 'the host \S+ (is, or resolves to,|cannot be resolved)';

UPDATE webhook_endpoints
   SET disabled_reason = regexp_replace(disabled_reason,
         'the host (\S+) (is, or resolves to, a private or loopback address \([^)]*\)|cannot be resolved)',
         'the address of the host \1 is not allowed', 'g')
 WHERE disabled_reason ~ 'the host \S+ (is, or resolves to,|cannot be resolved)';

UPDATE webhook_deliveries
   SET last_error = regexp_replace(last_error,
         'the host (\S+) (is, or resolves to, a private or loopback address \([^)]*\)|cannot be resolved)',
         'the address of the host \1 is not allowed', 'g')
 WHERE last_error ~ 'the host \S+ (is, or resolves to,|cannot be resolved)';
