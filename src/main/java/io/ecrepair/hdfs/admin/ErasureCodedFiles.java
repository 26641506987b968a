package io.ecrepair.hdfs.admin;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/** The files under a path (the path itself when it is a file), on the cluster the path names. */
public final class ErasureCodedFiles {
  private ErasureCodedFiles() {}

  /** The HDFS the path lives on (the cluster's {@code fs.defaultFS} for a path without a scheme). */
  public static DistributedFileSystem fileSystem(Path path, Configuration conf) throws IOException {
    FileSystem fs = path.getFileSystem(conf);
    if (!(fs instanceof DistributedFileSystem)) {
      throw new IllegalArgumentException(path + " is not on HDFS (its file system is " + fs.getUri()
          + "; set fs.defaultFS or give an hdfs:// path)");
    }
    return (DistributedFileSystem) fs;
  }

  /** Every file under {@code path}, sorted by path; an error naming the path when it does not exist. */
  public static List<FileStatus> under(DistributedFileSystem fs, Path path) throws IOException {
    FileStatus top;
    try {
      top = fs.getFileStatus(path);
    } catch (FileNotFoundException e) {
      throw new IllegalArgumentException(path + ": no such file or directory");
    }
    List<FileStatus> files = new ArrayList<>();
    if (top.isFile()) {
      files.add(top);
      return files;
    }
    RemoteIterator<LocatedFileStatus> it = fs.listFiles(path, true);
    while (it.hasNext()) {
      files.add(it.next());
    }
    files.sort((a, b) -> a.getPath().toString().compareTo(b.getPath().toString()));
    return files;
  }
}
