package io.ecrepair.plan;

import io.ecrepair.ecdag.Ecdag;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Pictures of a plan: Graphviz DOT text, and a PNG drawn with Java2D (headless): vertices in
 * rows by topological level (leaves on top, the root at the bottom), filled with their node's
 * color, edges between them, and the traffic table underneath.
 */
public final class PlanRenderer {
  private static final String[] PALETTE = {
      "#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
      "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000", "#aaffc3", "#808000"};

  private PlanRenderer() {}

  /** The fill color of a node. */
  static String colorOf(int node) {
    return PALETTE[node % PALETTE.length];
  }

  /** The plan as a Graphviz digraph, with the traffic table as a label. */
  public static String dot(Plan plan, String title) {
    RepairProblem p = plan.problem();
    Ecdag g = plan.graph();
    StringBuilder s = new StringBuilder();
    s.append("digraph plan {\n");
    s.append("  label=\"").append(escape(title)).append("\"; labelloc=t; rankdir=TB;\n");
    s.append("  node [style=filled, fontsize=10, fontname=\"Helvetica\"];\n");
    s.append("  edge [fontsize=8, fontname=\"Helvetica\"];\n");
    for (Ecdag.Vertex v : g.vertices()) {
      int c = plan.color(v.id());
      String shape = switch (v.kind()) {
        case LEAF -> "box";
        case INNER -> "ellipse";
        case REPAIRED -> "doublecircle";
        case ROOT -> "house";
      };
      String what = switch (v.kind()) {
        case LEAF, REPAIRED -> "b" + v.block() + "[" + v.subchunk() + "]";
        case INNER -> "inner";
        case ROOT -> "R";
      };
      s.append("  v").append(v.id()).append(" [shape=").append(shape).append(", fillcolor=\"").append(colorOf(c))
          .append("\", label=\"v").append(v.id()).append("\\n").append(what).append("\\nnode ").append(p.nodeName(c))
          .append("\"];\n");
    }
    for (Ecdag.Edge e : g.edges()) {
      boolean transfer = plan.color(e.from()) != plan.color(e.to());
      s.append("  v").append(e.from()).append(" -> v").append(e.to()).append(" [label=\"").append(e.coef()).append("\"")
          .append(transfer ? ", penwidth=2" : ", style=dashed").append("];\n");
    }
    Traffic t = plan.traffic();
    s.append("  traffic [shape=plaintext, style=\"\", label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\">")
        .append("<tr><td>node</td><td>in</td><td>out</td></tr>");
    for (int n = 0; n < t.nodeCount(); n++) {
      if (t.in(n) > 0 || t.out(n) > 0) {
        s.append("<tr><td bgcolor=\"").append(colorOf(n)).append("\">").append(p.nodeName(n)).append("</td><td>")
            .append(t.in(n)).append("</td><td>").append(t.out(n)).append("</td></tr>");
      }
    }
    s.append("<tr><td colspan=\"3\">bandwidth ").append(t.bandwidth()).append(", max load ").append(t.maxLoad())
        .append(" sub-chunks</td></tr></table>>];\n");
    s.append("}\n");
    return s.toString();
  }

  private static String escape(String x) {
    return x.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  /** Draws the plan and writes a PNG. */
  public static void png(Plan plan, String title, OutputStream out) throws IOException {
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
    RepairProblem p = plan.problem();
    Ecdag g = plan.graph();
    int[] level = levels(g);
    int maxLevel = 0;
    for (int l : level) {
      maxLevel = Math.max(maxLevel, l);
    }
    List<List<Integer>> byLevel = new ArrayList<>();
    for (int l = 0; l <= maxLevel; l++) {
      byLevel.add(new ArrayList<>());
    }
    for (Ecdag.Vertex v : g.vertices()) {
      byLevel.get(level[v.id()]).add(v.id());
    }
    for (List<Integer> l : byLevel) {
      // Same-node vertices side by side: the coloring reads as blocks of color.
      l.sort((a, b) -> plan.color(a) != plan.color(b)
          ? Integer.compare(plan.color(a), plan.color(b)) : Integer.compare(a, b));
    }
    int count = g.vertices().size();
    int cell = count <= 60 ? 56 : count <= 400 ? 18 : 9;
    int maxWidth = 2400;
    int perRow = Math.max(1, (maxWidth - 40) / cell);
    int rows = 0;
    for (List<Integer> l : byLevel) {
      rows += Math.max(1, (l.size() + perRow - 1) / perRow);
    }
    int widest = 0;
    for (List<Integer> l : byLevel) {
      widest = Math.max(widest, Math.min(perRow, l.size()));
    }
    int rowGap = cell * 2;
    int graphWidth = Math.max(480, widest * cell + 40);
    int top = 50;
    int graphHeight = top + rows * rowGap + 20;
    Traffic t = plan.traffic();
    List<Integer> active = new ArrayList<>();
    for (int n = 0; n < t.nodeCount(); n++) {
      if (t.in(n) > 0 || t.out(n) > 0 || n == p.requestor()) {
        active.add(n);
      }
    }
    int lineH = 20;
    int tableHeight = (active.size() + 3) * lineH + 20;
    int width = Math.max(graphWidth, Math.max(14 * title.length() / 2 + 40, 760));
    graphWidth = width;
    int height = graphHeight + tableHeight;
    BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D gr = img.createGraphics();
    try {
      gr.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      gr.setColor(Color.WHITE);
      gr.fillRect(0, 0, width, height);
      gr.setColor(Color.BLACK);
      gr.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
      gr.drawString(title, 10, 20);
      double[] x = new double[count];
      double[] y = new double[count];
      int row = 0;
      for (List<Integer> l : byLevel) {
        int subRows = Math.max(1, (l.size() + perRow - 1) / perRow);
        for (int i = 0; i < l.size(); i++) {
          int r = i / perRow;
          int inRow = Math.min(perRow, l.size() - r * perRow);
          int col = i % perRow;
          double left = (graphWidth - inRow * cell) / 2.0;
          x[l.get(i)] = left + col * cell + cell / 2.0;
          y[l.get(i)] = top + (row + r) * rowGap + cell / 2.0;
        }
        row += subRows;
      }
      gr.setStroke(new BasicStroke(count <= 400 ? 1.2f : 0.5f));
      for (Ecdag.Edge e : g.edges()) {
        boolean transfer = plan.color(e.from()) != plan.color(e.to());
        gr.setColor(transfer ? new Color(0, 0, 0, 140) : new Color(150, 150, 150, 70));
        gr.drawLine((int) x[e.from()], (int) y[e.from()], (int) x[e.to()], (int) y[e.to()]);
      }
      int d = Math.max(5, cell - 6);
      gr.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
      for (Ecdag.Vertex v : g.vertices()) {
        Color fill = Color.decode(colorOf(plan.color(v.id())));
        int cx = (int) (x[v.id()] - d / 2.0);
        int cy = (int) (y[v.id()] - d / 2.0);
        gr.setColor(fill);
        if (v.kind() == Ecdag.Kind.LEAF) {
          gr.fillRect(cx, cy, d, d);
        } else {
          gr.fillOval(cx, cy, d, d);
        }
        gr.setColor(Color.BLACK);
        gr.setStroke(new BasicStroke(v.kind() == Ecdag.Kind.REPAIRED || v.kind() == Ecdag.Kind.ROOT ? 2f : 0.7f));
        if (v.kind() == Ecdag.Kind.LEAF) {
          gr.drawRect(cx, cy, d, d);
        } else {
          gr.drawOval(cx, cy, d, d);
        }
        if (cell >= 56) {
          String label = v.kind() == Ecdag.Kind.ROOT ? "R" : "v" + v.id();
          gr.drawString(label, cx + 4, cy + d / 2 + 4);
        }
      }
      int ty = graphHeight + 10;
      int[] colX = {20, 180, 260, 340};
      gr.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
      String[] head = {"node", "in", "out", "load"};
      for (int i = 0; i < head.length; i++) {
        gr.drawString(head[i], colX[i], ty + 14);
      }
      gr.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      for (int k = 0; k < active.size(); k++) {
        int n = active.get(k);
        int yy = ty + (k + 1) * lineH;
        gr.setColor(Color.decode(colorOf(n)));
        gr.fillRect(colX[0], yy + 3, 14, 14);
        gr.setColor(Color.BLACK);
        gr.drawRect(colX[0], yy + 3, 14, 14);
        gr.drawString(p.nodeName(n) + (n == p.requestor() ? " (requestor)" : ""), colX[0] + 20, yy + 14);
        gr.drawString(Integer.toString(t.in(n)), colX[1], yy + 14);
        gr.drawString(Integer.toString(t.out(n)), colX[2], yy + 14);
        gr.drawString(Integer.toString(t.load(n)), colX[3], yy + 14);
      }
      int alpha = g.subchunkCount();
      gr.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
      gr.drawString(String.format(Locale.ROOT,
          "repair bandwidth %d sub-chunks (%.3f blocks), max repair load %d (%.3f blocks)",
          t.bandwidth(), (double) t.bandwidth() / alpha, t.maxLoad(), (double) t.maxLoad() / alpha), 20,
          ty + (active.size() + 1) * lineH + 16);
    } finally {
      gr.dispose();
    }
    if (!ImageIO.write(img, "png", out)) {
      throw new IOException("no PNG writer available");
    }
  }

  /** Longest path from a leaf, per vertex. */
  static int[] levels(Ecdag g) {
    int[] level = new int[g.vertices().size()];
    for (Ecdag.Vertex v : g.vertices()) {
      int l = 0;
      for (Ecdag.Edge e : g.inputs(v.id())) {
        l = Math.max(l, level[e.from()] + 1);
      }
      level[v.id()] = l;
    }
    return level;
  }
}
