//! S3 client, sans-IO: requests are values, responses are bytes.
