-- A delivery's attempts move into the delivery row (attempt_log), oldest first: one row written per settlement
-- instead of two (docs/decisions/0032-event-webhooks.md, amendment "attempts in the delivery row").
ALTER TABLE "webhook_deliveries" ADD COLUMN "attempt_log" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
UPDATE "webhook_deliveries" d SET "attempt_log" = a.log
FROM (
  SELECT "delivery_id", jsonb_agg(jsonb_build_object(
    'attempt', "attempt",
    'at', to_char("at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'durationMs', "duration_ms",
    'status', "status",
    'error', "error",
    'requestHeaders', "request_headers",
    'responseHeaders', "response_headers") ORDER BY "attempt") AS log
  FROM "webhook_delivery_attempts" GROUP BY "delivery_id"
) a
WHERE a."delivery_id" = d."id";--> statement-breakpoint
DROP TABLE "webhook_delivery_attempts" CASCADE;
