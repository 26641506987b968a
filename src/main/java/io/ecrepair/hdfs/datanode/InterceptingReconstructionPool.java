package io.ecrepair.hdfs.datanode;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Stands in for {@code ErasureCodingWorker.stripedReconstructionPool}: every task HDFS
 * submits passes through {@code substitute} (which returns it unchanged, or our replacement
 * for a task of one of our policies) and then runs on HDFS's own pool, so the pool size
 * ({@code dfs.datanode.ec.reconstruction.threads}), its queue and its threads stay HDFS's.
 * This executor has no threads of its own.
 */
final class InterceptingReconstructionPool extends ThreadPoolExecutor {
  private final ThreadPoolExecutor delegate;
  private final UnaryOperator<Runnable> substitute;

  InterceptingReconstructionPool(ThreadPoolExecutor delegate, UnaryOperator<Runnable> substitute) {
    super(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    this.delegate = delegate;
    this.substitute = substitute;
  }

  ThreadPoolExecutor delegate() {
    return delegate;
  }

  @Override
  public Future<?> submit(Runnable task) {
    return delegate.submit(substitute.apply(task));
  }

  @Override
  public <T> Future<T> submit(Runnable task, T result) {
    return delegate.submit(substitute.apply(task), result);
  }

  @Override
  public <T> Future<T> submit(Callable<T> task) {
    return delegate.submit(task);
  }

  @Override
  public void execute(Runnable task) {
    delegate.execute(substitute.apply(task));
  }

  @Override
  public void shutdown() {
    delegate.shutdown();
    super.shutdown();
  }

  @Override
  public List<Runnable> shutdownNow() {
    super.shutdownNow();
    return delegate.shutdownNow();
  }

  @Override
  public boolean isShutdown() {
    return delegate.isShutdown();
  }

  @Override
  public boolean isTerminated() {
    return delegate.isTerminated();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return delegate.awaitTermination(timeout, unit);
  }

  @Override
  public int getActiveCount() {
    return delegate.getActiveCount();
  }

  @Override
  public long getTaskCount() {
    return delegate.getTaskCount();
  }

  @Override
  public long getCompletedTaskCount() {
    return delegate.getCompletedTaskCount();
  }

  @Override
  public int getPoolSize() {
    return delegate.getPoolSize();
  }

  @Override
  public int getCorePoolSize() {
    return delegate.getCorePoolSize();
  }

  @Override
  public int getMaximumPoolSize() {
    return delegate.getMaximumPoolSize();
  }

  @Override
  public String toString() {
    return "ec-repair interceptor over " + delegate;
  }
}
