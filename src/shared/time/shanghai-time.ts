import { formatInTimeZone } from 'date-fns-tz';
import { SERVICE_TIME_ZONE } from './service-day.js';

/**
 * An instant as operators read it: Shanghai local time with its offset
 * (`2026-12-01 00:00:00 +08:00`), the zone the service days and the cron schedules count in.
 */
export function shanghaiTime(instant: string | number | Date): string {
  return formatInTimeZone(instant, SERVICE_TIME_ZONE, 'yyyy-MM-dd HH:mm:ss xxx');
}
