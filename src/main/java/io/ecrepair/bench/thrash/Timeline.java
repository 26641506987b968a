package io.ecrepair.bench.thrash;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/** The run over time: faults (from start to heal) and samples of the NameNode's repair queue. */
public final class Timeline {
  /** One fault; {@code end} equals {@code start} for an instant one. */
  public record Span(FaultKind kind, String target, double start, double end) {}

  /** At {@code t} seconds: groups low on redundancy or missing, and reconstructions scheduled and not done. */
  public record Sample(double t, long lowRedundancy, long repairsInFlight) {}

  private final List<Span> spans = new ArrayList<>();
  private final List<Sample> samples = new ArrayList<>();

  public synchronized void add(Span s) {
    spans.add(s);
  }

  public synchronized void add(Sample s) {
    samples.add(s);
  }

  public synchronized List<Span> spans() {
    return List.copyOf(spans);
  }

  public synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  /** Writes the PNG: one row of fault bars per kind above the two curves; {@code faultsEnd} marks when faults stopped. */
  public synchronized void write(Path png, String title, double faultsEnd) throws IOException {
    int w = 1400;
    int h = 640;
    int left = 120;
    int right = 30;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    double tMax = 1;
    for (Span s : spans) {
      tMax = Math.max(tMax, s.end());
    }
    for (Sample s : samples) {
      tMax = Math.max(tMax, s.t());
    }
    double scale = (w - left - right) / tMax;
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(title, left, 22);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    FaultKind[] kinds = FaultKind.values();
    int rowH = 24;
    int top = 40;
    Color[] palette = {new Color(0xC0392B), new Color(0x8E44AD), new Color(0x2980B9), new Color(0x16A085),
        new Color(0xD35400), new Color(0x7F8C8D), new Color(0x2C3E50), new Color(0x27AE60)};
    for (int i = 0; i < kinds.length; i++) {
      int y = top + i * rowH;
      g.setColor(Color.DARK_GRAY);
      g.drawString(kinds[i].label(), 8, y + 15);
      g.setColor(new Color(0xEEEEEE));
      g.drawLine(left, y + rowH - 2, w - right, y + rowH - 2);
      g.setColor(palette[i % palette.length]);
      for (Span s : spans) {
        if (s.kind() == kinds[i]) {
          int x0 = left + (int) (s.start() * scale);
          int x1 = Math.max(x0 + 3, left + (int) (s.end() * scale));
          g.fillRect(x0, y + 4, x1 - x0, rowH - 10);
        }
      }
    }
    int plotTop = top + kinds.length * rowH + 30;
    int plotBottom = h - 50;
    long yMax = 1;
    for (Sample s : samples) {
      yMax = Math.max(yMax, Math.max(s.lowRedundancy(), s.repairsInFlight()));
    }
    g.setColor(Color.BLACK);
    g.drawLine(left, plotBottom, w - right, plotBottom);
    g.drawLine(left, plotTop, left, plotBottom);
    g.drawString(Long.toString(yMax), left - 40, plotTop + 5);
    g.drawString("0", left - 20, plotBottom + 4);
    for (int s = 0; s <= tMax; s += tickStep(tMax)) {
      int x = left + (int) (s * scale);
      g.drawLine(x, plotBottom, x, plotBottom + 4);
      g.drawString(s + " s", x - 10, plotBottom + 18);
    }
    double yScale = (double) (plotBottom - plotTop) / yMax;
    curve(g, left, plotBottom, scale, yScale, new Color(0xC0392B), true);
    curve(g, left, plotBottom, scale, yScale, new Color(0x2980B9), false);
    g.setColor(new Color(0xC0392B));
    g.drawString("groups low on redundancy or missing", left + 10, plotTop - 8);
    g.setColor(new Color(0x2980B9));
    g.drawString("reconstructions in flight (NameNode)", left + 300, plotTop - 8);
    g.setColor(Color.GRAY);
    int xe = left + (int) (faultsEnd * scale);
    g.setStroke(new BasicStroke(1, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
    g.drawLine(xe, top, xe, plotBottom);
    g.drawString("faults stop", xe + 4, plotBottom - 6);
    g.dispose();
    ImageIO.write(img, "png", png.toFile());
  }

  private void curve(Graphics2D g, int left, int bottom, double scale, double yScale, Color c, boolean low) {
    g.setColor(c);
    g.setStroke(new BasicStroke(2));
    int px = -1;
    int py = -1;
    for (Sample s : samples) {
      long v = low ? s.lowRedundancy() : s.repairsInFlight();
      if (v < 0) {
        px = -1;  // the NameNode did not answer (restarting)
        continue;
      }
      int x = left + (int) (s.t() * scale);
      int y = bottom - (int) (v * yScale);
      if (px >= 0) {
        g.drawLine(px, py, x, y);
      }
      px = x;
      py = y;
    }
  }

  private static int tickStep(double tMax) {
    for (int s : new int[] {10, 30, 60, 120, 300, 600}) {
      if (tMax / s <= 14) {
        return s;
      }
    }
    return 1200;
  }

  /** "12.0-40.5 s dn-kill dn3" lines, in order of start. */
  public synchronized List<String> describe() {
    return spans.stream().sorted(java.util.Comparator.comparingDouble(Span::start))
        .map(s -> String.format(Locale.ROOT, "%.1f-%.1f s %s %s", s.start(), s.end(), s.kind().label(),
            s.target() == null ? "" : s.target()).strip()).toList();
  }
}
