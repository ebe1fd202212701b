ALTER TABLE "consent_request_jobs" ADD COLUMN "notified_by" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "consent_request_jobs" ADD COLUMN "failed_by" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_transports" ADD COLUMN "fcm_project_id" text;--> statement-breakpoint
ALTER TABLE "notification_transports" ADD COLUMN "fcm_client_email" text;--> statement-breakpoint
ALTER TABLE "notification_transports" ADD COLUMN "fcm_key_sealed" text;--> statement-breakpoint
ALTER TABLE "notification_transports" ADD COLUMN "apns_key_sealed" text;--> statement-breakpoint
ALTER TABLE "notification_transports" ADD COLUMN "apns_key_id" text;--> statement-breakpoint
ALTER TABLE "notification_transports" ADD COLUMN "apns_team_id" text;--> statement-breakpoint
ALTER TABLE "notification_transports" ADD COLUMN "apns_bundle_id" text;--> statement-breakpoint
ALTER TABLE "notification_transports" ADD COLUMN "apns_production" boolean DEFAULT true NOT NULL;