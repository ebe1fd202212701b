ALTER TABLE "refresh_tokens" ADD COLUMN "predecessor_hash" "bytea";--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD COLUMN "successor_sealed" text;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD COLUMN "grace_until" timestamp with time zone;