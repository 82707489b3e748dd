/**
 * Cron schedules and time zones as CronJob validation reads them: the
 * parser the CronJob controller schedules with (robfig/cron/v3's
 * ParseStandard), whose error text validation reports verbatim.
 */
export { cronScheduleError } from '../../util/cronSchedule';
export { isKnownTimeZone } from '../../util/zonedTime';
