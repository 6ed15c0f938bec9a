import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AccountError } from '../../src/domain/accounts/account-error.js';
import { ReportError } from '../../src/domain/reports/report-error.js';
import { FeedbackError } from '../../src/domain/feedback/feedback.js';
import { ApiError } from '../../src/http/api/api-error.js';
import { AppPasswordError } from '../../src/domain/content/app-passwords.js';
import { InvalidSiteDateError } from '../../src/domain/content/site-dates.js';
import { UnknownSiteRoleError } from '../../src/domain/content/site-roles.js';
import { DatabaseUnreachableError } from '../../src/shared/db/reachability-gate.js';
import { UnreadableJsonEntriesError } from '../../src/shared/io/json-entries.js';
import { MediaError } from '../../src/domain/media/media-error.js';
import { OAuthError } from '../../src/domain/oauth/oauth-error.js';
import { OAuthInputError } from '../../src/domain/oauth/oauth-input-error.js';
import { OAuthClientNotFoundError } from '../../src/domain/oauth/oauth-not-found-error.js';
import { OembedError } from '../../src/domain/oembed/oembed-error.js';
import { RestError } from '../../src/http/site/rest/rest-error.js';
import { TemplateError } from '../../src/domain/templates/template-error.js';
import { PictureRenderError } from '../../src/domain/circulation-images/circulation-pictures.js';
import { UnreadableOfficialFileError } from '../../src/domain/circulation/import-official.js';
import { InvalidInferenceRuleError } from '../../src/domain/circulation/inference-rule.js';
import { MalformedOfficialEntryError } from '../../src/domain/circulation/official-entry.js';
import { CliError } from '../../src/cli/cli-context.js';
import { ConfigError } from '../../src/shared/config/config.js';
import { EmbeddedDatabaseBusyError } from '../../src/shared/db/pglite-db.js';
import { ServerStartError } from '../../src/shared/app/server-entry.js';
import { CoachLayoutFileError } from '../../src/domain/emus/import-coach-layouts.js';
import { FleetFileError } from '../../src/domain/emus/import-fleet.js';
import { MalformedEmuCodeError } from '../../src/domain/emus/normalize-emu-code.js';
import { EmutrackError, isEmutrackError } from '../../src/shared/errors/emutrack-error.js';
import { ExportStorageFullError } from '../../src/domain/exports/export-storage-error.js';
import { ExportRefusedError } from '../../src/domain/exports/export-refused-error.js';
import { OutputDirectoryInUseError } from '../../src/generator/outputs.js';
import { TrainNumbersExhaustedError } from '../../src/generator/train-numbers.js';
import { InvalidGenerateOptionError } from '../../src/generator/write-dataset.js';
import { InputNotFoundError } from '../../src/domain/ingest/ingest-observations.js';
import { UnreadableFileError } from '../../src/domain/ingest/read-observation-lines.js';
import { InvalidJobPayloadError } from '../../src/worker/execute-job.js';
import { UnknownQueueError } from '../../src/worker/job-queues.js';
import { NightlyIncompleteError } from '../../src/worker/nightly-plan.js';
import { InvalidServiceDateError } from '../../src/shared/time/service-day.js';
import { StationCursorError } from '../../src/domain/timetables/station-board.js';
import { MalformedTrainCodeError } from '../../src/domain/trains/train-code.js';
import { CorrectionError } from '../../src/domain/corrections/correction-error.js';
import { InputLimitError } from '../../src/http/site/edge/input-limits.js';
import {
  ChangeCursorExpiredError,
  ChangeCursorInvalidError,
} from '../../src/domain/records/record-changes.js';
import { WebhookError } from '../../src/domain/webhooks/webhook-error.js';
import { AlertError } from '../../src/domain/alerts/alert-error.js';
import { AlertMailUnavailableError } from '../../src/http/alert-subscribing.js';
import { PageInputError, PageNotFoundError } from '../../src/http/web/web-errors.js';
import { SourcePullError } from '../../src/domain/sources/pull-source.js';
import { SourceSettingError } from '../../src/domain/sources/source-config.js';
import { SourceExistsError, SourceNotFoundError } from '../../src/domain/sources/source-store.js';
import { SourceRequestError } from '../../src/domain/sources/paced-http.js';
import { V2FormatError } from '../../src/domain/sources/v2-page.js';
import { HttpGetFailure } from '../../src/shared/io/http-get.js';
import { QueuedPullError } from '../../src/worker/source-pulls.js';
import { FavouriteError } from '../../src/domain/favourites/favourite-error.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const day = 20_675; // 2026-08-10

/** [class name, an instance, its stable code, its message]: a code never changes once shipped. */
const cases: [string, EmutrackError, string, string][] = [
  [
    'ConfigError',
    new ConfigError('PORT', 'not a number'),
    'config_invalid',
    'configuration: PORT: not a number',
  ],
  ['CliError', new CliError('--to is before --from'), 'cli_failed', '--to is before --from'],
  [
    'MalformedEmuCodeError',
    new MalformedEmuCodeError('CR 400'),
    'malformed_emu_code',
    'malformed EMU code "CR 400": expected letters, digits and dashes such as CR400AF-2001',
  ],
  [
    'FleetFileError',
    new FleetFileError('fleet.csv', 'line 3: model: required'),
    'fleet_file_invalid',
    'fleet.csv: line 3: model: required',
  ],
  [
    'CoachLayoutFileError',
    new CoachLayoutFileError('layouts.json', 'entry 2: coaches: required'),
    'coach_layout_file_invalid',
    'layouts.json: entry 2: coaches: required',
  ],
  [
    'MalformedTrainCodeError',
    new MalformedTrainCodeError('X1'),
    'malformed_train_code',
    'expected a train number such as G1234, G4340/37 or G4340/G4337, got "X1"',
  ],
  [
    'CorrectionError',
    new CorrectionError('conflict', 'observation', 'already retracted (correction 7)'),
    'correction_refused',
    'observation: already retracted (correction 7)',
  ],
  [
    'ReportError',
    new ReportError('invalid', 'date', 'more than 3 days back'),
    'report_refused',
    'date: more than 3 days back',
  ],
  [
    'FeedbackError',
    new FeedbackError('topic', 'expected one of missing-assignment'),
    'feedback_refused',
    'topic: expected one of missing-assignment',
  ],
  [
    'InvalidServiceDateError',
    new InvalidServiceDateError('20260230', 'day 30 does not exist in 2026-02'),
    'invalid_service_date',
    'invalid date "20260230": day 30 does not exist in 2026-02',
  ],
  [
    'InputNotFoundError',
    new InputNotFoundError('/no/such'),
    'input_not_found',
    '/no/such: no such file or directory',
  ],
  [
    'UnreadableFileError',
    new UnreadableFileError('a.ndjson', 'not UTF-8'),
    'ingest_unreadable_file',
    'a.ndjson: not UTF-8',
  ],
  [
    'InvalidJobPayloadError',
    new InvalidJobPayloadError('build-daily-records', 'serviceDay: expected number'),
    'job_payload_invalid',
    'build-daily-records: invalid payload: serviceDay: expected number',
  ],
  ['UnknownQueueError', new UnknownQueueError('frob'), 'unknown_queue', 'no queue for job "frob"'],
  [
    'MalformedOfficialEntryError',
    new MalformedOfficialEntryError('trains', 'must not be empty'),
    'official_entry_malformed',
    'trains: must not be empty',
  ],
  [
    'UnreadableOfficialFileError',
    new UnreadableOfficialFileError('official.json: not JSON'),
    'official_file_unreadable',
    'official.json: not JSON',
  ],
  [
    'InvalidInferenceRuleError',
    new InvalidInferenceRuleError('threshold', 'must be in (0, 1]'),
    'inference_rule_invalid',
    'threshold: must be in (0, 1]',
  ],
  [
    'EmbeddedDatabaseBusyError',
    new EmbeddedDatabaseBusyError('/data/pglite'),
    'embedded_database_busy',
    'the embedded database at /data/pglite is in use by another emutrack process (API, worker or CLI); stop it (on the embedded database `npm start` serves the documentation site too), or set DATABASE_URL to share a Postgres server',
  ],
  [
    'ServerStartError',
    new ServerStartError(
      'port 3000 (PORT) is in use by another process: stop it, or set PORT to a free port',
    ),
    'server_start_failed',
    'port 3000 (PORT) is in use by another process: stop it, or set PORT to a free port',
  ],
  [
    'PictureRenderError',
    new PictureRenderError(new Error('font missing')),
    'picture_render_failed',
    'the circulation picture could not be rendered: font missing',
  ],
  [
    'StationCursorError',
    new StationCursorError('北京南', 42),
    'station_cursor_invalid',
    'timetable 42 does not stop at 北京南',
  ],
  [
    'OutputDirectoryInUseError',
    new OutputDirectoryInUseError('/out', 'notes.txt'),
    'generator_output_in_use',
    '/out holds "notes.txt", which a generated dataset does not: choose an empty or new directory',
  ],
  [
    'InvalidGenerateOptionError',
    new InvalidGenerateOptionError('--days', 'at least 1'),
    'generator_option_invalid',
    '--days: at least 1',
  ],
  [
    'TrainNumbersExhaustedError',
    new TrainNumbersExhaustedError(),
    'generator_train_numbers_exhausted',
    'no train numbers left (G, D and C all used up): generate a smaller network',
  ],
  [
    'ExportStorageFullError',
    new ExportStorageFullError(day, new Error('No space left on device')),
    'export_storage_full',
    'export of 20260810 not stored: the database has no room left (No space left on device); the stored export of that day is unchanged',
  ],
  [
    'InputLimitError',
    new InputLimitError('max_input_vars', 'Form body refused: more than 1000 input variables.'),
    'max_input_vars',
    'Form body refused: more than 1000 input variables.',
  ],
  [
    'AlertMailUnavailableError',
    new AlertMailUnavailableError('address: the verification mail could not be sent'),
    'alert_mail_unavailable',
    'address: the verification mail could not be sent',
  ],
  [
    'AlertError',
    new AlertError(
      'alert_invalid_input',
      'channel: expected one of email, webpush, webhook',
      'channel',
    ),
    'alert_invalid_input',
    'channel: expected one of email, webpush, webhook',
  ],
  [
    'WebhookError',
    new WebhookError('webhook_invalid_url', 'url must be https', 'url'),
    'webhook_invalid_url',
    'url must be https',
  ],
  [
    'ChangeCursorExpiredError',
    new ChangeCursorExpiredError({ position: 1n, recordId: 2n }, { position: 9n, recordId: 4n }),
    'cursor_expired',
    'cursor 1.2 is older than the changes kept; read the days again from GET /api/v2/records/daily and follow the feed from cursor 9.4',
  ],
  [
    'ChangeCursorInvalidError',
    new ChangeCursorInvalidError('x'),
    'invalid_cursor',
    'cursor "x" is not a change-feed cursor: expected "" or a nextCursor of this feed ("<position>.<record id>")',
  ],
  [
    'ExportRefusedError',
    new ExportRefusedError(day + 1, 'future_day', day),
    'export_refused',
    'export of 20260811 refused: the day is after today (20260810, Shanghai); nothing was written',
  ],
  [
    'NightlyIncompleteError',
    new NightlyIncompleteError(day, [{ serviceDay: day - 1, error: new Error('boom') }]),
    'nightly_incomplete',
    'nightly of 20260810: 20260809 failed: boom; the other days and the reference models ran',
  ],
  [
    'ApiError',
    new ApiError('rate_limited', 'the daily limit of this key is used up', 30),
    'rate_limited',
    'the daily limit of this key is used up',
  ],
  [
    'AccountError',
    new AccountError('username_taken', 'username "ann" is taken', 'username'),
    'username_taken',
    'username "ann" is taken',
  ],
  [
    'OAuthError',
    new OAuthError('invalid_grant', 'the code was already used'),
    'oauth_invalid_grant',
    'invalid_grant: the code was already used',
  ],
  [
    'OAuthInputError',
    new OAuthInputError('name', 'must not be empty'),
    'oauth_invalid_input',
    'name: must not be empty',
  ],
  [
    'OAuthClientNotFoundError',
    new OAuthClientNotFoundError('abc'),
    'oauth_client_not_found',
    'no OAuth client "abc"',
  ],
  [
    'DatabaseUnreachableError',
    new DatabaseUnreachableError(new Error('connect ECONNREFUSED 127.0.0.1:5432')),
    'database_unreachable',
    'the database is unreachable (connect ECONNREFUSED 127.0.0.1:5432)',
  ],
  [
    'UnreadableJsonEntriesError',
    new UnreadableJsonEntriesError('layouts.json', 'no such file', 'ENOENT'),
    'json_entries_unreadable',
    'layouts.json: no such file',
  ],
  [
    'UnknownSiteRoleError',
    new UnknownSiteRoleError('owner'),
    'site_role_unknown',
    'unknown site role "owner"; one of administrator, editor, author, contributor, subscriber',
  ],
  [
    'AppPasswordError',
    new AppPasswordError(
      'application_password_empty_name',
      'name: an application name is required',
    ),
    'application_password_empty_name',
    'name: an application name is required',
  ],
  [
    'InvalidSiteDateError',
    new InvalidSiteDateError('date'),
    'rest_invalid_date',
    'date: invalid date',
  ],
  [
    'RestError',
    new RestError('rest_no_route', 'No route was found matching the URL and request method.', 404),
    'rest_no_route',
    'No route was found matching the URL and request method.',
  ],
  [
    'MediaError',
    new MediaError('rest_upload_no_data', 400, 'no data supplied'),
    'rest_upload_no_data',
    'no data supplied',
  ],
  [
    'OembedError',
    new OembedError('oembed_invalid_url', 404, 'Not Found: no allowed provider for this URL'),
    'oembed_invalid_url',
    'Not Found: no allowed provider for this URL',
  ],
  [
    'TemplateError',
    new TemplateError(
      'rest_template_exists',
      400,
      'A template with the slug "home" already exists.',
    ),
    'rest_template_exists',
    'A template with the slug "home" already exists.',
  ],
  [
    'PageInputError',
    new PageInputError('date', 'expected YYYYMMDD'),
    'web_invalid_param',
    'date: expected YYYYMMDD',
  ],
  [
    'PageNotFoundError',
    new PageNotFoundError('no train G99999'),
    'web_not_found',
    'no train G99999',
  ],
  [
    'SourcePullError',
    new SourcePullError('live', '20260816: 500', undefined),
    'source_pull_failed',
    'source live: 20260816: 500',
  ],
  [
    'SourceSettingError',
    new SourceSettingError('--rate', 'expected a number > 0'),
    'source_setting_invalid',
    '--rate: expected a number > 0',
  ],
  [
    'SourceNotFoundError',
    new SourceNotFoundError('live'),
    'source_not_found',
    'no source named "live"',
  ],
  [
    'SourceExistsError',
    new SourceExistsError('live'),
    'source_exists',
    'a source named "live" exists already',
  ],
  [
    'SourceRequestError',
    new SourceRequestError('http://x/api/v2/records/daily', 'status 500'),
    'source_request_failed',
    'GET http://x/api/v2/records/daily: status 500',
  ],
  [
    'V2FormatError',
    new V2FormatError('data.items.0.emuId: expected a number'),
    'source_answer_invalid',
    'data.items.0.emuId: expected a number',
  ],
  [
    'HttpGetFailure',
    new HttpGetFailure('timed out after 30000 ms'),
    'http_get_failed',
    'timed out after 30000 ms',
  ],
  [
    'QueuedPullError',
    new QueuedPullError('source live: the worker did not finish the pull within 3600 s'),
    'source_queued_pull_failed',
    'source live: the worker did not finish the pull within 3600 s',
  ],
  [
    'FavouriteError',
    new FavouriteError('code', 'no train is known as G99999'),
    'favourite_refused',
    'code: no train is known as G99999',
  ],
];

describe('the product’s errors', () => {
  it.each(cases)('%s has its stable code and message', (name, error, code, message) => {
    expect(error).toBeInstanceOf(EmutrackError);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
    expect(isEmutrackError(error, code)).toBe(true);
  });

  it('gives every class its own code', () => {
    expect(new Set(cases.map(([, , code]) => code)).size).toBe(cases.length);
  });

  it('lists every error class of src/ (the jobs included)', async () => {
    // Every `class X extends ...Error` in the product's code, read from the sources, so that a
    // new class (or one that leaves the base class) fails here until it is in the table.
    const files: string[] = [];
    for (const dir of ['src']) {
      const names = await readdir(path.join(root, dir), { recursive: true });
      files.push(...names.filter((n) => n.endsWith('.ts')).map((n) => path.join(dir, n)));
    }
    const declared: string[] = [];
    const notOnBase: string[] = [];
    for (const file of files) {
      const text = await readFile(path.join(root, file), 'utf8');
      for (const m of text.matchAll(/class (\w+) extends (\w+)/g)) {
        if (!/Error$/.test(m[2]!)) continue;
        if (m[1] === 'EmutrackError') continue;
        declared.push(m[1]!);
        if (m[2] !== 'EmutrackError') notOnBase.push(`${file}: ${m[1]} extends ${m[2]}`);
      }
    }
    // ArgInvalid (src/http/site/rest/arg-schema.ts) is the site schema checker's internal signal,
    // caught and turned into a RestError (rest_invalid_param) before it leaves the site.
    expect(notOnBase).toEqual(['src/http/site/rest/arg-schema.ts: ArgInvalid extends Error']);
    expect(declared.filter((n) => n !== 'ArgInvalid').sort()).toEqual(
      cases.map(([name]) => name).sort(),
    );
  });

  it('keeps the API envelope of an ApiError: its code, HTTP status and Retry-After', () => {
    const error = new ApiError('rate_limited', 'slow down', 30);
    expect(error.statusCode).toBe(429);
    expect(error.retryAfter).toBe(30);
    expect(new ApiError('unavailable', 'down').statusCode).toBe(503);
  });
});
