//! JNI glue.
