/**
 * Adapters for an operator's commands against a live cluster ({@code ec-repair status},
 * {@code verify}, {@code convert}): they talk to HDFS as any client does (the NameNode's block
 * locations and fsck, block reads with the client's tokens and SASL) and leave the decisions
 * to {@code layout} and {@code exec} (what a repair reads) and to Hadoop's raw coders (encoding).
 */
package io.ecrepair.hdfs.admin;
