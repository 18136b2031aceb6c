/**
 * SendMessageRequest sends a message into the running turn. Each turn queues at most
 * --max-queued-messages (default 100) messages and --max-queued-bytes (default 4 MiB) of text
 * its backend has not taken yet; beyond that it is RESOURCE_EXHAUSTED/MESSAGE_QUEUE_FULL
 * (limit_name and limit in ErrorInfo metadata). What is still queued when the turn ends is
 * rejected (a message_rejected note) and dropped.
 */
export interface SendMessageRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * The turn the message is meant for; empty for whichever runs (a mismatch is ABORTED).
     */
    'turnId'?: (string);
    /**
     * The text (not empty, at most 64 KiB of UTF-8).
     */
    'text'?: (string);
}
/**
 * SendMessageRequest sends a message into the running turn. Each turn queues at most
 * --max-queued-messages (default 100) messages and --max-queued-bytes (default 4 MiB) of text
 * its backend has not taken yet; beyond that it is RESOURCE_EXHAUSTED/MESSAGE_QUEUE_FULL
 * (limit_name and limit in ErrorInfo metadata). What is still queued when the turn ends is
 * rejected (a message_rejected note) and dropped.
 */
export interface SendMessageRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * The turn the message is meant for; empty for whichever runs (a mismatch is ABORTED).
     */
    'turnId': (string);
    /**
     * The text (not empty, at most 64 KiB of UTF-8).
     */
    'text': (string);
}
