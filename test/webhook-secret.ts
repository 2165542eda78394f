/** The key the test worker signs completion webhooks with. */
export const TEST_WEBHOOK_SECRET = 'test-webhook-secret-0123456789';
