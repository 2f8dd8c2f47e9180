//! Webhook events over the service clock.
