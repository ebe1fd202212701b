ALTER TABLE "consent_request_jobs" ADD COLUMN "skip_reason" text;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "state" text;--> statement-breakpoint
UPDATE "webhook_attempts" SET "state" = CASE WHEN "error" IS NULL THEN 'delivered' ELSE 'failed' END;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ALTER COLUMN "state" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_attempts_in_flight" ON "webhook_attempts" USING btree ("job_id","user_id") WHERE state = 'sending';
