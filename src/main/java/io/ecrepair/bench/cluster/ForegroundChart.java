package io.ecrepair.bench.cluster;

import io.ecrepair.bench.cluster.ForegroundOps.Kind;
import io.ecrepair.bench.cluster.ForegroundOps.Op;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * A PNG of the foreground's latency over a recovery: one dot per operation (when it was due,
 * its latency on a log scale), the failure marked and the repair's span shaded.
 */
final class ForegroundChart {
  private static final Color READ = new Color(0x1971c2);
  private static final Color WRITE = new Color(0xe8590c);
  private static final Color FAILED = new Color(0xc92a2a);

  private ForegroundChart() {}

  static void write(Path png, String title, ForegroundLoad.Result r) throws IOException {
    System.setProperty("java.awt.headless", "true");
    int w = 1200;
    int h = 560;
    int left = 80;
    int right = 30;
    int top = 60;
    int bottom = h - 60;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    double t0 = Double.MAX_VALUE;
    double t1 = -Double.MAX_VALUE;
    double maxMs = 10;
    for (Op o : r.ops()) {
      t0 = Math.min(t0, o.dueMs());
      t1 = Math.max(t1, o.dueMs());
      maxMs = Math.max(maxMs, o.latencyMs());
    }
    if (r.ops().isEmpty()) {
      t0 = r.killMs();
      t1 = r.recoveredMs();
    }
    t1 = Math.max(t1, t0 + 1000);
    double xScale = (w - left - right) / (t1 - t0);
    double decades = Math.ceil(Math.log10(maxMs));  // y from 1 ms to 10^decades ms
    double yScale = (bottom - top) / decades;
    final double start = t0;
    java.util.function.DoubleToIntFunction x = ms -> left + (int) ((ms - start) * xScale);
    java.util.function.DoubleToIntFunction y = ms -> bottom - (int) (Math.log10(Math.max(1, ms)) * yScale);

    g.setColor(new Color(0xFFF3BF));
    g.fillRect(x.applyAsInt(r.dropMs()), top, Math.max(2, x.applyAsInt(r.recoveredMs()) - x.applyAsInt(r.dropMs())),
        bottom - top);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(title, left, 22);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    g.drawLine(left, bottom, w - right, bottom);
    g.drawLine(left, top, left, bottom);
    for (int d = 0; d <= decades; d++) {
      int yy = bottom - (int) (d * yScale);
      g.setColor(new Color(0xE9ECEF));
      g.drawLine(left + 1, yy, w - right, yy);
      g.setColor(Color.BLACK);
      g.drawString(String.format(Locale.ROOT, "%.0f ms", Math.pow(10, d)), 10, yy + 4);
    }
    int step = (t1 - t0) / 1000 > 120 ? 30 : 10;
    for (int s = 0; s <= (t1 - t0) / 1000; s += step) {
      int xx = x.applyAsInt(t0 + s * 1000.0);
      g.drawLine(xx, bottom, xx, bottom + 4);
      g.drawString(s + " s", xx - 10, bottom + 18);
    }
    for (Op o : r.ops()) {
      g.setColor(!o.ok() ? FAILED : o.kind() == Kind.READ ? READ : WRITE);
      g.fillOval(x.applyAsInt(o.dueMs()) - 2, y.applyAsInt(o.latencyMs()) - 2, 4, 4);
    }
    g.setColor(Color.DARK_GRAY);
    g.setStroke(new BasicStroke(1, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
    int xk = x.applyAsInt(r.killMs());
    g.drawLine(xk, top, xk, bottom);
    g.drawString("DataNode killed", xk + 4, top + 12);
    g.drawString("repair", x.applyAsInt(r.dropMs()) + 4, top + 28);
    int ly = h - 22;
    legend(g, READ, String.format(Locale.ROOT, "reads (%d KiB)", ForegroundClient.READ_BYTES >> 10), left, ly);
    legend(g, WRITE, String.format(Locale.ROOT, "file writes (%d KiB)", ForegroundClient.WRITE_BYTES >> 10),
        left + 180, ly);
    legend(g, FAILED, "failed", left + 380, ly);
    g.setColor(Color.BLACK);
    g.drawString("shaded: the repair (NameNode dropped the replicas until nothing was left to rebuild)", left + 480,
        ly + 4);
    g.dispose();
    ImageIO.write(img, "png", png.toFile());
  }

  private static void legend(Graphics2D g, Color c, String text, int x, int y) {
    g.setColor(c);
    g.fillOval(x, y - 4, 8, 8);
    g.setColor(Color.BLACK);
    g.drawString(text, x + 14, y + 4);
  }
}
